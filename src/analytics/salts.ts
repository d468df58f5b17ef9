// The salt of each UTC day's visitor hashes: random, the same on every instance (one row per day
// in visitor_salts, made by whichever instance asks first), and deleted the day after next by
// analytics_partitions, so that no hash can be made again from an address once its day is over.
// Read ahead of time (today's and tomorrow's, every hour), so that enrichment never waits on
// Postgres; a day whose salt could not be read uses a random one of this instance's, and then its
// visitors may count twice across instances (logged once).

import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { utcDay } from '../core/day-range.ts';

/** The two 32-bit seeds of the visitor hash, from a day's 16 bytes of salt. */
export interface Seeds {
  readonly a: number;
  readonly b: number;
}

export interface SaltStore {
  /** The day's salt, made if no instance made it yet. */
  salt(day: string, fresh: Buffer): Promise<Buffer>;
}

const DAY_MS = 86_400_000;

export class VisitorSalts {
  readonly #store: SaltStore;
  readonly #log: Logger;
  readonly #seeds = new Map<string, Seeds>();
  #warned = new Set<string>();

  constructor(store: SaltStore, log: Logger) {
    this.#store = store;
    this.#log = log;
  }

  /** Reads today's and tomorrow's salts; never rejects (a failure is logged, and the next read tries again). */
  async refresh(now = Date.now()): Promise<void> {
    for (const day of [utcDay(now), utcDay(now + DAY_MS)]) {
      if (this.#seeds.has(day) && !this.#warned.has(day)) continue;
      try {
        const salt = await this.#store.salt(day, randomBytes(16));
        this.#seeds.set(day, seedsOf(salt));
        this.#warned.delete(day);
      } catch (err) {
        this.#log.warn({ err, day }, 'visitor salt could not be read: trying again within the hour');
      }
    }
    for (const day of this.#seeds.keys()) if (day < utcDay(now - DAY_MS)) this.#seeds.delete(day);
  }

  /** The seeds of `day`: the shared salt's, or a random one of this instance's until that is read. */
  seeds(day: string): Seeds {
    let seeds = this.#seeds.get(day);
    if (seeds === undefined) {
      seeds = seedsOf(randomBytes(16));
      this.#seeds.set(day, seeds);
      this.#warned.add(day);
      this.#log.warn({ day }, "the day's visitor salt is not read yet: this instance's visitors may count twice with other instances'");
    }
    return seeds;
  }
}

function seedsOf(salt: Buffer): Seeds {
  return { a: salt.readInt32LE(0) ^ salt.readInt32LE(8), b: salt.readInt32LE(4) ^ salt.readInt32LE(12) };
}
