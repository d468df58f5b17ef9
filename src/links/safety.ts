// Links made before a blocklist named their target (docs/security.md#links-a-list-names-later): when
// a list gains entries (blocklists.ts), the links they may name are found through the index of
// their target domains (never a scan of every link per entry), judged against the whole of the
// lists (an entry of a subdomain or a URL is narrower than its key), and marked blocked or flagged
// (BLOCKLIST_ACTION), each with its event, then announced to every tier of the read path like any
// change. Links whose targets are not indexed yet (made before migration 0021, or whose targets just
// changed) are indexed here in batches, and judged as they are.
//
// Nothing here runs on a request. A sweep that fails (Postgres away) keeps its keys for the next
// attempt; every statement is idempotent across instances (a link is acted on once, by whichever
// instance's statement marks it first).

import type { Logger } from 'pino';
import type { BlocklistMatch } from '../core/blocklist/match.ts';
import { targetDomains } from '../core/blocklist/entries.ts';
import type { LinkSafety } from '../core/link.ts';
import { linkTargets } from '../core/link-options.ts';
import type { Queryable } from '../db/pool.ts';
import type { Propagation } from '../resolve/propagation.ts';
import { linksNaming, markUnsafe, unindexedLinks, writeTargetDomains, type After, type Candidate, type Verdict } from './safety-store.ts';

/** Keys a statement asks the index for at once, and links a page reads (and a statement marks). */
const KEYS_AT_ONCE = 500;
const PAGE = 1000;
/**
 * Links one statement marks: each is a new row version in every index of links (14), about 1 ms a
 * link (docs/performance.md#blocklist-sweeps), so that a statement stays well inside
 * DB_STATEMENT_TIMEOUT_MS on a busy server.
 */
const MARK_AT_ONCE = 200;
/** How often links not indexed yet are looked for, and failed sweeps tried again. */
const INDEX_INTERVAL_MS = 5_000;
/**
 * Pages of links not indexed yet that one run indexes at most: the backfill after migration 0021
 * (every link at once) goes on over the runs, and a run awaited by a request (an operator's
 * block_domain) or by shutdown stays short.
 */
const INDEX_PAGES_PER_RUN = 5;

export interface SafetyDeps {
  readonly db: Queryable;
  readonly propagation: Pick<Propagation, 'announce'>;
  readonly action: LinkSafety;
  /** The entry of the lists, as they are now, that a target matches (blocklists.ts match). */
  readonly match: (url: string) => BlocklistMatch | null;
  readonly log: Logger;
}

export class LinkSafetySweeper {
  readonly #deps: SafetyDeps;
  /** Index keys (core/blocklist/entries.ts indexKey) of entries whose links are still to be found. */
  readonly #pending = new Set<string>();
  #running: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #stopping = false;
  /** Links marked since start-up (tests and the log read it). */
  marked = 0;

  constructor(deps: SafetyDeps) {
    this.#deps = deps;
  }

  /**
   * Finds and acts on the links entries with these index keys may name; resolves once every key
   * given so far has been swept, or a sweep failed (its keys stay for the next try). Never rejects.
   */
  sweep(keys: Iterable<string>): Promise<void> {
    for (const key of keys) this.#pending.add(key);
    return this.run();
  }

  /** Runs the pending sweeps and the indexing of links not indexed yet; one run at a time, a call meanwhile runs again after it. */
  run(): Promise<void> {
    if (this.#running !== null) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#runOnce();
      } while (this.#again);
    })().finally(() => (this.#running = null));
    return this.#running;
  }

  /** Runs every INDEX_INTERVAL_MS until stop(); the timer keeps no process alive. */
  schedule(): void {
    this.#timer = setInterval(() => void this.run(), INDEX_INTERVAL_MS).unref();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  async #runOnce(): Promise<void> {
    try {
      while (this.#pending.size > 0 && !this.#stopping) {
        const keys = [...this.#pending].slice(0, KEYS_AT_ONCE);
        await this.#sweepKeys(keys);
        for (const key of keys) this.#pending.delete(key);
      }
      for (let page = 0; page < INDEX_PAGES_PER_RUN && !this.#stopping; page++) if ((await this.#indexSome()) < PAGE) break;
    } catch (err) {
      this.#deps.log.warn({ err, pendingKeys: this.#pending.size }, 'blocklist sweep failed: it is tried again');
    }
  }

  async #sweepKeys(keys: readonly string[]): Promise<void> {
    let after: After | null = null;
    for (;;) {
      const page = await linksNaming(this.#deps.db, keys, after, PAGE);
      await this.#act(page);
      const last = page.at(-1);
      if (last === undefined || page.length < PAGE) return;
      after = last;
    }
  }

  /** Indexes a batch of links whose targets are not indexed, and acts on those the lists name; returns how many were read. */
  async #indexSome(): Promise<number> {
    const page = await unindexedLinks(this.#deps.db, PAGE);
    if (page.length === 0) return 0;
    await writeTargetDomains(
      this.#deps.db,
      page,
      page.map((link) => targetDomains(linkTargets(link.url, link.options).map((target) => target.url))),
    );
    await this.#act(page);
    return page.length;
  }

  /** Marks the links of `page` a list names, and tells the read path. */
  async #act(page: readonly Candidate[]): Promise<void> {
    const verdicts: Verdict[] = [];
    for (const link of page) {
      const found = this.#judge(link);
      if (found !== null) verdicts.push({ ...link, list: found.list });
    }
    if (verdicts.length === 0) return;
    const marked = [];
    for (let i = 0; i < verdicts.length; i += MARK_AT_ONCE) {
      const some = await markUnsafe(this.#deps.db, verdicts.slice(i, i + MARK_AT_ONCE), this.#deps.action);
      if (some.length > 0) await this.#deps.propagation.announce(some);
      this.marked += some.length;
      marked.push(...some);
    }
    if (marked.length === 0) return;
    this.#deps.log.info(
      { links: marked.length, action: this.#deps.action, lists: [...new Set(verdicts.map((v) => v.list))] },
      'links acted on by a blocklist',
    );
  }

  #judge(link: Candidate): BlocklistMatch | null {
    for (const target of linkTargets(link.url, link.options)) {
      const found = this.#deps.match(target.url);
      if (found !== null) return found;
    }
    return null;
  }
}
