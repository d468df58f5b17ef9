// Knows, without any I/O per request, that most codes cannot exist, so that a scanner asking for
// random codes gets its 404s from memory instead of from Postgres.
//
// A generated code is the keyed permutation of an id, and ids come from a sequence in blocks: a
// code whose id lies far above the sequence's high-water mark was never handed out. Every instance
// reads the mark (and the aliases added since its last look) every REFRESH_MS, and trusts what it
// read for MAX_AGE_MS after that read began. The two holes, and how they are closed:
//
//   - Ids reserved by other instances since the read: a code is impossible only if its id is at
//     least SLACK above the mark. Reaching past it in MAX_AGE_MS would take millions of block
//     reservations a second; creating links goes nowhere near (it reserves one block per 1000).
//   - Aliases of the generated shape (exactly CODE_LENGTH letters and digits) decode to some id
//     too. Each instance keeps those aliases in memory, and the 201 for a new one waits
//     MAX_AGE_MS after its commit: by then every instance that still trusts its last read began
//     that read after the commit, and so knows the alias.
//
// Only codes the service generated are marked so in the table (`generated`); every other row,
// imported by hand included, counts as an alias. Rows imported while instances run must keep the
// default created_at (now), or the instances restarted: each read only looks a minute back.
//
// Everything else (other shapes, ids near or below the mark, a stale read, a database whose
// codes were generated with another CODE_SECRET or CODE_LENGTH) goes to the resolver as before.
// A false "impossible" would be a false 404; every doubt resolves to "look it up".

import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { CodeCodec } from '../core/codes.ts';
import type { Queryable } from '../db/pool.ts';

export const REFRESH_MS = 500;
export const MAX_AGE_MS = 1500;
/** Ids that may be reserved elsewhere between two reads (2^32; a block is 1000 ids). */
export const SLACK = 2 ** 32;
/** Past this many aliases of the generated shape, memory matters more than the filter. */
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
  /** Aliases of the generated shape whose id is at or above mark + SLACK. */
  readonly #aliases = new Set<string>();
  #mark = Infinity;
  #readStartedAt = -Infinity;
  /** The database's clock at the last read: the next one reads only aliases from around then on. */
  #readAt: Date | null = null;
  #enabled = true;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: CodeSpaceOptions) {
    this.#deps = deps;
  }

  /** True only when `code` certainly names no link. */
  impossible(code: string): boolean {
    if (!this.#enabled || performance.now() - this.#readStartedAt > MAX_AGE_MS) return false;
    const id = this.#deps.codec.toId(code);
    return id >= this.#mark + SLACK && !this.#aliases.has(code);
  }

  /** How long the 201 for a new alias must wait so that no instance can answer it with a 404. */
  ackDelayMs(alias: string): number {
    return this.#deps.codec.toId(alias) >= 0 ? MAX_AGE_MS : 0;
  }

  /** A committed alias, known here at once (other instances learn it at their next read). */
  added(alias: string): void {
    if (this.#deps.codec.toId(alias) >= 0) this.#aliases.add(alias);
  }

  /** First read, then one every REFRESH_MS until stop(). Never rejects: a failed read only ages. */
  async start(): Promise<void> {
    this.#enabled = await this.#checkKey().catch((err: unknown) => {
      this.#deps.log.warn({ err }, 'code space: cannot read its settings; every unknown code is looked up');
      return false;
    });
    if (this.#enabled) await this.#tick();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #tick(): Promise<void> {
    // Postgres being down is the breaker's news to tell; here it only means "look codes up".
    await this.#read().catch((err: unknown) => this.#deps.log.debug({ err }, 'code space: read failed'));
    if (!this.#stopped && this.#enabled) this.#timer = setTimeout(() => void this.#tick(), REFRESH_MS).unref();
  }

  /** Records this configuration's code length and key on first use; false if they differ. */
  async #checkKey(): Promise<boolean> {
    const { db, codeLength, codeSecret, log } = this.#deps;
    const fingerprint = createHmac('sha256', codeSecret).update('shortener-code-space').digest('hex').slice(0, 16);
    await db.query('INSERT INTO code_space (code_length, key_fingerprint) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      codeLength,
      fingerprint,
    ]);
    const { rows } = await db.query<{ code_length: number; key_fingerprint: string }>(
      'SELECT code_length, key_fingerprint FROM code_space',
    );
    const row = rows[0];
    if (row?.code_length === codeLength && row.key_fingerprint === fingerprint) return true;
    log.warn(
      'CODE_LENGTH or CODE_SECRET differ from those that generated this database\'s codes: every unknown code is looked up in Postgres',
    );
    return false;
  }

  async #read(): Promise<void> {
    const startedAt = performance.now();
    const { db, codec } = this.#deps;
    const state = await db.query<{ mark: string; at: Date }>(
      `SELECT CASE WHEN s.is_called THEN s.last_value + p.seqincrement ELSE s.last_value END AS mark, now() AS at
       FROM link_id_blocks s, pg_sequence p WHERE p.seqrelid = 'link_id_blocks'::regclass`,
    );
    const row = state.rows[0];
    const mark = Number(row?.mark ?? Number.NaN);
    if (row === undefined || !Number.isSafeInteger(mark)) throw new Error('sequence link_id_blocks is missing; run the migrations');
    // Rows are stamped when their transaction began and may commit up to a statement timeout
    // later, so each read looks a minute further back than the last one's clock.
    const aliases =
      this.#readAt === null
        ? await db.query<{ code: string }>('SELECT code FROM links WHERE NOT generated')
        : await db.query<{ code: string }>(
            "SELECT code FROM links WHERE NOT generated AND created_at > $1::timestamptz - interval '1 minute'",
            [this.#readAt],
          );
    for (const { code } of aliases.rows) if (codec.toId(code) >= mark + SLACK) this.#aliases.add(code);
    if (this.#aliases.size > MAX_ALIASES) {
      this.#enabled = false;
      this.#aliases.clear();
      this.#deps.log.warn({ max: MAX_ALIASES }, 'code space: too many aliases of the generated shape; every unknown code is looked up');
      return;
    }
    this.#readAt = row.at;
    this.#mark = mark;
    this.#readStartedAt = startedAt;
  }
}
