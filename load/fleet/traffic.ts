// The fleet's clients: a bounded mix of requests through HAProxy at a paced rate, each recorded in
// the history (load/fleet/history.ts): redirects over the acknowledged links by Zipf rank, creates
// one by one and in bulk, new targets, disables and enables (one write at a time per link, on the
// hot links too, so that stale reads would show), and stats reads.

import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '../traffic.ts';
import { SERVED_BY } from './haproxy.ts';
import { GONE, MISSING, type History, type LinkHistory, type LinkValue, type RequestKind, type Version } from './history.ts';

export interface Mix {
  readonly redirect: number;
  readonly create: number;
  readonly bulk: number;
  readonly update: number;
  readonly toggle: number;
  readonly stats: number;
}

export const MIX: Mix = { redirect: 88, create: 4, bulk: 0.5, update: 4, toggle: 2, stats: 1.5 };
export const BULK_ITEMS = 10;
const ZIPF_MAX = 1_000_000;
// Past HAProxy's `timeout server` (30 s): a write the client gave up on is one HAProxy gave up on.
const REQUEST_TIMEOUT_MS = 35_000;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly by: string | null;
  readonly location: string | null;
  readonly documented: boolean;
}

const NO_ANSWER: Answer = { status: 0, body: '', by: null, location: null, documented: false };

/** The `error.code` of a JSON error body, or null. */
function errorCode(answer: Answer): string | null {
  if (answer.status < 400) return null;
  try {
    return (JSON.parse(answer.body) as { error?: { code?: string } }).error?.code ?? null;
  } catch {
    return null;
  }
}

/** The current state of a link as the clients wrote it last (the value a read should come to). */
interface Current {
  url: string;
  disabled: boolean;
  busy: boolean;
}

export class Traffic {
  readonly history: History;
  /** 302s answered per code. */
  readonly served = new Map<string, number>();
  /** When each instance answered a 302 (ms), for the clicks a crash of it may lose. */
  readonly servedAt = new Map<string, number[]>();
  /** Target URLs of creates whose answer was lost: they may exist, under a code nobody knows. */
  readonly unknownCreates = new Set<string>();
  readonly #base: URL;
  readonly #agent: http.Agent;
  readonly #key: string;
  #t0: number;
  readonly #random = seededRandom(20261204);
  readonly #cdf: Float64Array;
  /** Acknowledged links, hottest first (the order their creates were acknowledged). */
  readonly #codes: string[] = [];
  readonly #current = new Map<string, Current>();
  #next = 0;
  #running = false;
  #workers: Promise<void>[] = [];

  constructor(options: { url: string; apiKey: string; connections: number; zipfS: number; history: History }) {
    this.#base = new URL(options.url);
    this.#agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
    this.#key = options.apiKey;
    this.#t0 = performance.now();
    this.history = options.history;
    this.#cdf = new Float64Array(ZIPF_MAX);
    let sum = 0;
    for (let k = 0; k < ZIPF_MAX; k++) {
      sum += 1 / (k + 1) ** options.zipfS;
      this.#cdf[k] = sum;
    }
  }

  #now(): number {
    return performance.now() - this.#t0;
  }

  /** Creates `count` links in bulks before the clock starts: the links the first redirects go to. */
  async seed(count: number): Promise<void> {
    for (let made = 0; made < count; made += 100) await this.#bulk(Math.min(100, count - made));
    if (this.#codes.length < count) throw new Error(`seeding the fleet: ${this.#codes.length} of ${count} links created`);
  }

  /**
   * Starts `connections` clients that together send about `rate` requests a second. The clock
   * starts again at 0: the seed's writes are moved before it, its requests left out of the outcomes.
   */
  start(connections: number, rate: number): void {
    const shift = performance.now() - this.#t0;
    this.#t0 += shift;
    for (const link of this.history.links.values()) {
      for (const version of link.versions) {
        version.sentAt -= shift;
        version.doneAt -= shift;
      }
    }
    this.history.outcomes.length = 0;
    this.#running = true;
    const gap = (1000 * connections) / rate;
    this.#workers = Array.from({ length: connections }, (_, i) => this.#client(gap, (gap * i) / connections));
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
    this.#agent.destroy();
  }

  /** performance.now() when the clock was 0. */
  get t0(): number {
    return this.#t0;
  }

  async #client(gap: number, offset: number): Promise<void> {
    let due = performance.now() + offset;
    while (this.#running) {
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      // Behind schedule (a slow answer): go on from now, never in a burst.
      due = Math.max(due + gap, performance.now());
      await this.#one();
    }
  }

  async #one(): Promise<void> {
    const total = MIX.redirect + MIX.create + MIX.bulk + MIX.update + MIX.toggle + MIX.stats;
    let pick = this.#random() * total;
    for (const [kind, weight] of Object.entries(MIX) as [keyof Mix, number][]) {
      pick -= weight;
      if (pick > 0) continue;
      if (kind === 'redirect') return this.#redirect();
      if (kind === 'create') return this.#create();
      if (kind === 'bulk') return this.#bulk(BULK_ITEMS);
      if (kind === 'stats') return this.#stats();
      return this.#change(kind);
    }
    return this.#redirect();
  }

  /** A link by Zipf rank among those acknowledged so far. */
  #rank(): string {
    const n = Math.min(this.#codes.length, ZIPF_MAX);
    const u = this.#random() * (this.#cdf[n - 1] ?? 0);
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#cdf[mid] ?? 0) < u) lo = mid + 1;
      else hi = mid;
    }
    return this.#codes[lo] ?? '';
  }

  async #redirect(): Promise<void> {
    const code = this.#rank();
    const start = this.#now();
    const answer = await this.#send('GET', `/${code}`);
    const end = this.#now();
    this.#record('redirect', start, end, answer);
    let value: LinkValue | null = null;
    if (answer.status === 302) value = answer.location;
    else if (answer.status === 410) value = GONE;
    else if (answer.status === 404) value = MISSING;
    this.history.reads.push({ code, start, end, value, by: answer.by });
    if (answer.status === 302) {
      this.served.set(code, (this.served.get(code) ?? 0) + 1);
      if (answer.by !== null) {
        const times = this.servedAt.get(answer.by) ?? [];
        times.push(end);
        this.servedAt.set(answer.by, times);
      }
    }
  }

  #newUrl(): string {
    return `https://example.com/fleet/${this.#next++}`;
  }

  /** A link whose create was acknowledged: hot ones are read from now on. */
  #acknowledge(code: string, version: Version): void {
    this.history.links.set(code, { code, versions: [version] });
    this.#current.set(code, { url: version.value, disabled: false, busy: false });
    this.#codes.push(code);
  }

  async #create(): Promise<void> {
    const url = this.#newUrl();
    const start = this.#now();
    const answer = await this.#send('POST', '/links', { url });
    const end = this.#now();
    this.#record('create', start, end, answer);
    const code = answer.status === 201 ? (JSON.parse(answer.body) as { code: string }).code : null;
    if (code !== null) this.#acknowledge(code, { value: url, sentAt: start, doneAt: end, outcome: 'ack', by: answer.by });
    else if (isUnknown(answer.status)) this.unknownCreates.add(url);
  }

  async #bulk(items: number): Promise<void> {
    const urls = Array.from({ length: items }, () => this.#newUrl());
    const start = this.#now();
    const answer = await this.#send('POST', '/links/bulk', { links: urls.map((url) => ({ url })) });
    const end = this.#now();
    this.#record('bulk', start, end, answer);
    if (answer.status !== 200) {
      if (isUnknown(answer.status)) for (const url of urls) this.unknownCreates.add(url);
      return;
    }
    const { results } = JSON.parse(answer.body) as { results: { index: number; status: number; link?: { code: string } }[] };
    for (const result of results) {
      const url = urls[result.index] ?? '';
      if (result.status === 201 && result.link !== undefined) {
        this.#acknowledge(result.link.code, { value: url, sentAt: start, doneAt: end, outcome: 'ack', by: answer.by });
      } else if (isUnknown(result.status)) {
        this.unknownCreates.add(url);
      }
    }
  }

  /** A new target for an enabled link, or a disable or enable; never two writes to a link at once. */
  async #change(kind: 'update' | 'toggle'): Promise<void> {
    const code = this.#rank();
    const current = this.#current.get(code);
    const link = this.history.links.get(code);
    if (current === undefined || link === undefined || current.busy) return this.#redirect();
    if (kind === 'update' && current.disabled) return this.#redirect();
    current.busy = true;
    try {
      await this.#write(link, current, kind === 'update' ? { url: this.#newUrl() } : { disabled: !current.disabled });
    } finally {
      current.busy = false;
    }
  }

  async #write(link: LinkHistory, current: Current, patch: { url?: string; disabled?: boolean }): Promise<void> {
    const url = patch.url ?? current.url;
    const disabled = patch.disabled ?? current.disabled;
    const kind: RequestKind = patch.url !== undefined ? 'update' : disabled ? 'disable' : 'enable';
    const version: Version = { value: disabled ? GONE : url, sentAt: this.#now(), doneAt: 0, outcome: 'unknown', by: null };
    link.versions.push(version);
    const answer = await this.#send('PATCH', `/links/${link.code}`, patch);
    version.doneAt = this.#now();
    version.by = answer.by;
    this.#record(kind, version.sentAt, version.doneAt, answer);
    if (answer.status === 200) {
      // The state the write left, as the answer says: after a write whose fate was unknown, a new
      // target may land on a link that is disabled after all.
      const state = JSON.parse(answer.body) as { url: string; disabled: boolean };
      version.outcome = 'ack';
      version.value = state.disabled ? GONE : state.url;
      current.url = state.url;
      current.disabled = state.disabled;
    } else if (isUnknown(answer.status)) {
      // It may have happened: the next write starts from that state, and the register check
      // allows both until an acknowledged write replaces them.
      current.url = url;
      current.disabled = disabled;
    } else {
      version.outcome = 'refused';
    }
  }

  async #stats(): Promise<void> {
    const code = this.#rank();
    const start = this.#now();
    const answer = await this.#send('GET', `/links/${code}/stats`);
    this.#record('stats', start, this.#now(), answer);
  }

  #record(kind: RequestKind, start: number, end: number, answer: Answer): void {
    this.history.outcomes.push({
      kind,
      start,
      end,
      status: answer.status,
      documented: answer.documented,
      by: answer.by,
      error: errorCode(answer),
    });
  }

  /** One request; its answer, or NO_ANSWER after a reset or REQUEST_TIMEOUT_MS. */
  #send(method: string, path: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${this.#key}` };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve) => {
      const req = http.request(
        { host: this.#base.hostname, port: this.#base.port, method, path, headers, agent: this.#agent, timeout: REQUEST_TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', () => resolve(NO_ANSWER));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            resolve({
              status,
              body: text,
              by: headerOf(res, SERVED_BY),
              location: headerOf(res, 'location'),
              documented: status === 503 && res.headers['retry-after'] !== undefined && text.includes('"code"'),
            });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve(NO_ANSWER));
      req.end(payload);
    });
  }
}

/** A write whose answer says nothing of whether it happened: no answer, or a 5xx. */
function isUnknown(status: number): boolean {
  return status === 0 || status >= 500;
}

function headerOf(res: http.IncomingMessage, name: string): string | null {
  const value = res.headers[name];
  return typeof value === 'string' ? value : null;
}
