// Rules out, with no I/O per request, codes that cannot exist, so that a scanner asking for random
// codes gets its 404s from memory instead of from Postgres. A false "impossible" would be a false
// 404, so every doubt resolves to "look it up": a generated code whose id lies at least SLACK above
// the id sequence's high-water mark is impossible unless it is a logged alias. How the holes are
// closed, and when every code is looked up: docs/architecture.md#impossible-codes.

import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { decodeBase62 } from '../core/base62.ts';
import { splitKey, type LinkKey } from '../core/domains.ts';
import { CODE_LENGTH_MAX, CODE_LENGTH_MIN, type CodeCodec } from '../core/codes.ts';
import { claimCodeSpace, readCodeSpace } from '../db/code-space.ts';
import type { Queryable } from '../db/pool.ts';

export const REFRESH_MS = 500;
export const MAX_AGE_MS = 1500;
/** The wait before acknowledging an alias: the trust window, and a margin for coarse timers. */
export const ACK_DELAY_MS = MAX_AGE_MS + 100;
/** Ids that may be reserved elsewhere between two reads (2^32; a block is 1000 ids). */
export const SLACK = 2 ** 32;
/** Past this many logged aliases, memory matters more than the filter. */
const MAX_ALIASES = 1_000_000;

export interface CodeSpaceOptions {
  db: Queryable;
  codec: CodeCodec;
  codeLength: number;
  codeSecret: string;
  log: Logger;
}

export class CodeSpace {
  readonly #deps: CodeSpaceOptions;
  /** Keys of logged aliases of this instance's generated shape whose id is at or above mark + SLACK. */
  readonly #aliases = new Set<string>();
  #mark = Infinity;
  #readStartedAt = -Infinity;
  /** The last alias-log version read: everything up to it is in #aliases. */
  #aliasVersion = -1;
  /** undefined until the code_space row has been checked against this configuration. */
  #enabled: boolean | undefined;
  /** The code length this database's codes were generated with, once known. */
  #databaseCodeLength: number | null = null;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: CodeSpaceOptions) {
    this.#deps = deps;
  }

  /**
   * True only when no link has the code `key` names on its domain. Generated codes are unique
   * across the deployment; an alias is one of its domain's only (so an alias on one domain never
   * makes the same code on another possible).
   */
  impossible(key: LinkKey): boolean {
    if (this.#enabled !== true || performance.now() - this.#readStartedAt > MAX_AGE_MS) return false;
    const id = this.#deps.codec.toId(splitKey(key).code);
    return id >= this.#mark + SLACK && !this.#aliases.has(key);
  }

  /**
   * How long the 201 for a new alias must wait so that no instance can answer it with a 404: any
   * alias that some instance could take for a generated code (letters and digits, of the length
   * this database's codes have, or of any possible length while that is not known).
   */
  ackDelayMs(alias: string): number {
    const length = alias.length;
    const possible =
      this.#databaseCodeLength === null
        ? length >= CODE_LENGTH_MIN && length <= CODE_LENGTH_MAX
        : length === this.#databaseCodeLength || length === this.#deps.codeLength;
    return possible && decodeBase62(alias) >= 0 ? ACK_DELAY_MS : 0;
  }

  /** A committed alias (by its link key), known here at once (other instances learn it at their next read). */
  added(key: LinkKey): void {
    if (this.#deps.codec.toId(splitKey(key).code) >= 0) this.#aliases.add(key);
  }

  /** First read, then one every REFRESH_MS until stop(). Never rejects: a failed read only ages. */
  async start(): Promise<void> {
    await this.#tick();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #tick(): Promise<void> {
    try {
      this.#enabled ??= await this.#checkKey();
      if (this.#enabled) await this.#read();
    } catch (err) {
      // Postgres being down is the breaker's news to tell; here it only means "look codes up".
      this.#deps.log.debug({ err }, 'code space: read failed');
    }
    if (!this.#stopped && this.#enabled !== false) this.#timer = setTimeout(() => void this.#tick(), REFRESH_MS).unref();
  }

  /** Records this configuration's code length and key on first use; false if they differ. */
  async #checkKey(): Promise<boolean> {
    const { db, codeLength, codeSecret, log } = this.#deps;
    const fingerprint = createHmac('sha256', codeSecret).update('shortener-code-space').digest('hex').slice(0, 16);
    const recorded = await claimCodeSpace(db, codeLength, fingerprint);
    this.#databaseCodeLength = recorded.codeLength;
    if (recorded.codeLength === codeLength && recorded.keyFingerprint === fingerprint) return true;
    log.warn(
      "CODE_LENGTH or CODE_SECRET differ from those that generated this database's codes: every unknown code is looked up in Postgres",
    );
    return false;
  }

  async #read(): Promise<void> {
    const startedAt = performance.now();
    const { db, codec } = this.#deps;
    // The limit keeps one read's memory bounded.
    const { mark, aliases: logged } = await readCodeSpace(db, this.#aliasVersion, MAX_ALIASES + 1);
    if (logged.length > MAX_ALIASES) return this.#tooManyAliases();
    for (const { version, key } of logged) {
      if (codec.toId(splitKey(key).code) >= mark + SLACK) this.#aliases.add(key);
      this.#aliasVersion = Math.max(this.#aliasVersion, version);
    }
    if (this.#aliases.size > MAX_ALIASES) return this.#tooManyAliases();
    this.#mark = mark;
    this.#readStartedAt = startedAt;
  }

  #tooManyAliases(): void {
    this.#enabled = false;
    this.#aliases.clear();
    this.#deps.log.warn({ max: MAX_ALIASES }, 'code space: too many aliases to keep in memory; every unknown code is looked up');
  }
}
