// Destination blocklists as the service keeps them: every list of BLOCKLISTS read at start-up and
// again every BLOCKLIST_REFRESH_MINUTES, from a file or over http(s), bounded in bytes and time.
// A list that fails to load keeps its last good version (empty if it never loaded), so that a
// feed's bad day neither stops the service nor unblocks what it blocked. Each load builds a new
// matcher and swaps the reference: a check in flight keeps the one it read.
//
// Besides BLOCKLISTS, the operators' own list (operator_blocklist, named "operator"), read from
// Postgres at start-up and again as soon as it changes (a cheap stamp of it is read every
// OPERATOR_CHECK_MS). Each load tells `onNewEntries` the index keys of the entries it did not have
// before (all of them, the first time), so that the links made before they were listed are found
// (links/safety.ts).

import { readFile, stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { OPERATOR_LIST, type BlocklistSource } from '../config/blocklist-settings.ts';
import { indexKey } from '../core/blocklist/entries.ts';
import { BlocklistMatcher, type BlocklistMatch, type Entries, type NamedList } from '../core/blocklist/match.ts';
import { parseBlocklist } from '../core/blocklist/parse.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { BlocklistCheck } from './blocklist-refusal.ts';

/** How long one fetch of a list may take, answer and body: feeds are tens of MiB at most. */
const FETCH_TIMEOUT_MS = 60_000;
/** How often the operators' list is looked at for a change, on every instance. */
const OPERATOR_CHECK_MS = 10_000;

/** Where the operators' list is kept (links/safety-store.ts). */
export interface OperatorList {
  entries(): Promise<string[]>;
  /** Changes whenever the entries do. */
  stamp(): Promise<string>;
}

/** What /readyz and the metrics tell of one list. */
export interface ListStatus {
  readonly name: string;
  readonly entries: number;
  readonly malformed: number;
  /** When its last good version was loaded (ms since the epoch), or null if it never was. */
  readonly loadedAt: number | null;
  /** Loads that failed since start-up. */
  readonly failures: number;
  /** Why the last load failed, or null if it succeeded. */
  readonly lastError: string | null;
}

interface ListState {
  readonly source: BlocklistSource;
  entries: NamedList;
  status: ListStatus;
}

export interface BlocklistsDeps {
  readonly lists: readonly BlocklistSource[];
  /** BLOCKLIST_ALLOW_FILE: domains and URLs never blocked. */
  readonly allowFile: string | undefined;
  readonly maxBytes: number;
  readonly log: Logger;
  readonly metrics: Metrics | null;
  /** The operators' list; undefined: none (tests of the loader alone). */
  readonly operator?: OperatorList;
  /** Told the index keys of entries a load added, after the new matcher is in place. */
  readonly onNewEntries?: (keys: Set<string>) => void;
}

export class Blocklists implements BlocklistCheck {
  readonly #deps: BlocklistsDeps;
  readonly #lists: ListState[];
  #allow: Entries = { domains: new Set(), urls: new Set() };
  #matcher = new BlocklistMatcher([]);
  #refreshing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #operatorTimer: NodeJS.Timeout | null = null;
  #operator: NamedList = { name: OPERATOR_LIST, domains: new Set(), urls: new Set() };
  #operatorStamp: string | null = null;
  #operatorStatus: ListStatus = { name: OPERATOR_LIST, entries: 0, malformed: 0, loadedAt: null, failures: 0, lastError: null };
  /** Index keys of entries loaded since the last matcher was built. */
  #added = new Set<string>();

  constructor(deps: BlocklistsDeps) {
    this.#deps = deps;
    this.#lists = deps.lists.map((source) => ({
      source,
      entries: { name: source.name, domains: new Set(), urls: new Set() },
      status: { name: source.name, entries: 0, malformed: 0, loadedAt: null, failures: 0, lastError: null },
    }));
    if (deps.metrics !== null) this.#registerMetrics(deps.metrics);
  }

  match(url: string): BlocklistMatch | null {
    return this.#matcher.match(url);
  }

  /** Each configured list's status, then the operators' list's (once it has been read, or failed to be). */
  status(): ListStatus[] {
    const lists = this.#lists.map((list) => list.status);
    return this.#operatorStatus.loadedAt === null && this.#operatorStatus.failures === 0 ? lists : [...lists, this.#operatorStatus];
  }

  /** Reads every list and the allow file again; resolves once the new matcher is in place. Never rejects. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#loadAll().finally(() => (this.#refreshing = null));
    return this.#refreshing;
  }

  /** Reads the operators' list again if it changed (or `always`); resolves once the matcher has it. Never rejects. */
  async refreshOperator(always = false): Promise<void> {
    const operator = this.#deps.operator;
    if (operator === undefined) return;
    try {
      const stamp = await operator.stamp();
      if (!always && stamp === this.#operatorStamp) return;
      const entries = await operator.entries();
      const urls = entries.filter((entry) => /^https?:\/\//i.test(entry));
      const domains = entries.filter((entry) => !/^https?:\/\//i.test(entry));
      const next = {
        name: OPERATOR_LIST,
        domains: new Set(parseBlocklist(domains.join('\n'), 'domains').domains),
        urls: new Set(parseBlocklist(urls.join('\n'), 'urls').urls),
      };
      this.#collectAdded(this.#operator, next);
      this.#operator = next;
      this.#operatorStamp = stamp;
      this.#operatorStatus = {
        ...this.#operatorStatus,
        entries: next.domains.size + next.urls.size,
        loadedAt: Date.now(),
        lastError: null,
      };
      this.#rebuild();
    } catch (err) {
      const { failures } = this.#operatorStatus;
      this.#operatorStatus = { ...this.#operatorStatus, failures: failures + 1, lastError: (err as Error).message };
      this.#deps.log.warn({ err }, "the operators' blocklist was not read: its last good version stays");
    }
  }

  /** Refreshes every `intervalMs`, and the operators' list as it changes, until stop(); the timers keep no process alive. */
  schedule(intervalMs: number): void {
    if (this.#deps.operator !== undefined) this.#operatorTimer = setInterval(() => void this.refreshOperator(), OPERATOR_CHECK_MS).unref();
    if (this.#lists.length === 0) return;
    this.#timer = setInterval(() => void this.refresh(), intervalMs).unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    if (this.#operatorTimer !== null) clearInterval(this.#operatorTimer);
    this.#timer = null;
    this.#operatorTimer = null;
  }

  async #loadAll(): Promise<void> {
    const allowed = this.#allow;
    await Promise.all([...this.#lists.map((list) => this.#load(list)), this.#loadAllowFile()]);
    // An entry the allow file no longer holds may have kept a list's entries off links: all of them are looked at again.
    if ([...allowed.domains, ...allowed.urls].some((entry) => !has(this.#allow, entry)))
      for (const list of [...this.#lists.map((state) => state.entries), this.#operator]) this.#collectAdded(EMPTY, list);
    this.#rebuild();
  }

  /** A new matcher of every list; then the keys of the entries added are handed on. */
  #rebuild(): void {
    const lists = this.#lists.map((list) => list.entries);
    // The operators' list joins the matcher once it holds something: without lists, a create pays nothing for them.
    if (setOf(this.#operator.domains).size + setOf(this.#operator.urls).size > 0) lists.push(this.#operator);
    this.#matcher = new BlocklistMatcher(lists, this.#allow);
    const added = this.#added;
    this.#added = new Set();
    if (added.size > 0) this.#deps.onNewEntries?.(added);
  }

  /** Adds the index keys of the entries `next` has and `previous` had not. */
  #collectAdded(previous: Entries, next: Entries): void {
    const domains = setOf(previous.domains);
    const urls = setOf(previous.urls);
    for (const domain of next.domains) if (!domains.has(domain)) this.#added.add(indexKey(domain));
    for (const url of next.urls) {
      const host = URL.parse(url)?.hostname;
      if (!urls.has(url) && host !== undefined) this.#added.add(indexKey(host));
    }
  }

  async #load(list: ListState): Promise<void> {
    const { name, format } = list.source;
    try {
      const parsed = parseBlocklist(await this.#read(list.source), format);
      const next = { name, domains: new Set(parsed.domains), urls: new Set(parsed.urls) };
      this.#collectAdded(list.entries, next);
      list.entries = next;
      const entries = parsed.domains.length + parsed.urls.length;
      list.status = { ...list.status, entries, malformed: parsed.malformed.count, loadedAt: Date.now(), lastError: null };
      this.#deps.log.info(
        { list: name, format: parsed.format, domains: parsed.domains.length, urls: parsed.urls.length, malformed: parsed.malformed.count },
        'blocklist loaded',
      );
    } catch (err) {
      const error = safeMessage(err, list.source);
      list.status = { ...list.status, failures: list.status.failures + 1, lastError: error };
      this.#deps.log.warn(
        { list: name, source: shownSource(list.source), error, keptEntries: list.status.entries },
        'blocklist not loaded: its last good version stays',
      );
    }
  }

  async #loadAllowFile(): Promise<void> {
    const path = this.#deps.allowFile;
    if (path === undefined) return;
    try {
      const parsed = parseBlocklist(await readBounded(path, this.#deps.maxBytes), 'auto');
      this.#allow = { domains: new Set(parsed.domains), urls: new Set(parsed.urls) };
    } catch (err) {
      this.#deps.log.warn({ file: path, error: (err as Error).message }, 'blocklist allow file not loaded: its last good version stays');
    }
  }

  #read(source: BlocklistSource): Promise<string> {
    return source.remote ? fetchBounded(source.source, this.#deps.maxBytes) : readBounded(source.source, this.#deps.maxBytes);
  }

  #registerMetrics(metrics: Metrics): void {
    metrics.gauge(
      'shortener_blocklist_entries',
      'Domains and URLs of each destination blocklist, as last loaded.',
      (set) => this.status().forEach((status) => set(status.entries, { list: status.name })),
      ['list'],
    );
    metrics.gauge(
      'shortener_blocklist_loaded_timestamp_seconds',
      'When each destination blocklist was last loaded successfully (Unix seconds; 0: never).',
      (set) => this.status().forEach((status) => set((status.loadedAt ?? 0) / 1000, { list: status.name })),
      ['list'],
    );
    metrics.gauge(
      'shortener_blocklist_failures',
      'Loads of each destination blocklist that failed since start-up (its last good version stayed).',
      (set) => this.status().forEach((status) => set(status.failures, { list: status.name })),
      ['list'],
    );
  }
}

const EMPTY: Entries = { domains: new Set(), urls: new Set() };

function setOf(entries: Iterable<string>): ReadonlySet<string> {
  return entries instanceof Set ? entries : new Set(entries);
}

function has(entries: Entries, entry: string): boolean {
  return setOf(entries.domains).has(entry) || setOf(entries.urls).has(entry);
}

async function readBounded(path: string, maxBytes: number): Promise<string> {
  const { size } = await stat(path);
  if (size > maxBytes) throw new Error(`the file has ${size} bytes, more than BLOCKLIST_MAX_BYTES (${maxBytes})`);
  return readFile(path, 'utf8');
}

/** The body of `url` as text; throws on a status other than 2xx, a timeout, or more than `maxBytes`. */
async function fetchBounded(url: string, maxBytes: number): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new Error(`answered ${response.status}`);
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) {
      await response.body.cancel();
      throw new Error(`the answer is longer than BLOCKLIST_MAX_BYTES (${maxBytes})`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A source as a log line may show it: a URL without its query, which may carry a key (PhishTank's does). */
function shownSource(source: BlocklistSource): string {
  if (!source.remote) return source.source;
  const url = URL.parse(source.source);
  return url === null ? '(an unparsable URL)' : `${url.origin}${url.pathname}`;
}

/** The error's message (and its cause's: fetch says "fetch failed" alone), without the source's query. */
function safeMessage(err: unknown, source: BlocklistSource): string {
  const error = err as Error & { cause?: unknown };
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const message = `${error.message}${cause}`;
  const query = source.remote ? (URL.parse(source.source)?.search ?? '') : '';
  return query === '' ? message : message.replaceAll(source.source, shownSource(source)).replaceAll(query, '');
}
