// A bounded load on a running server for the fault matrix: a few clients reading redirects over a
// mix of cached and uncached codes, a few creating links, each in a closed loop (one request at a
// time), until stopped or until `maxMs`. Every answer is recorded with the phase it was sent in,
// and every create that got a 201 with its code and URL (a Jepsen set: each one must be found).

import { randomUUID } from 'node:crypto';
import { withClient } from './db.ts';
import { until } from './wait.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Answer {
  readonly kind: 'read' | 'create';
  /** The phase when the request was sent. */
  readonly phase: string;
  /** performance.now() when the request was sent. */
  readonly sentAt: number;
  readonly ms: number;
  /** 0: no HTTP answer (refused, reset, timed out); see `error`. */
  readonly status: number;
  /** The `error.code` of a JSON error body, or the network error's code. */
  readonly error: string | undefined;
  readonly retryAfter: string | null;
  /** The code read, or the code a create got. */
  readonly code: string | undefined;
  /** A read of one of the cached codes. */
  readonly cached: boolean;
  /** A 302 to the link's own target, or a 201 that echoes the URL sent. */
  readonly right: boolean;
  /** The target a create sent (undefined for a read). */
  readonly url?: string;
}

export interface LoadOptions {
  readonly readers: number;
  readonly creators: number;
  /** Codes read once before the load started (in the LRU). */
  readonly cached: readonly string[];
  /** Codes no one has asked for yet. */
  readonly uncached: readonly string[];
  /** Share of reads that go to uncached codes (default 0.5). */
  readonly uncachedShare?: number;
  /** Where a code must redirect (default https://example.com/<code>, as insertRawLinks writes). */
  readonly target?: (code: string) => string;
  /** Path segment of the created URLs, so that runs do not mix. */
  readonly label: string;
  /** The phase of the first answers (default 'start'). */
  readonly phase?: string;
  /** The load stops by itself after this (default 60 s). */
  readonly maxMs?: number;
  /** Per request (default 5 s). */
  readonly requestTimeoutMs?: number;
}

function networkError(err: unknown): string {
  const error = err as Error & { cause?: { code?: string } };
  return error.cause?.code ?? error.name;
}

async function errorCode(res: Response): Promise<string | undefined> {
  const text = await res.text();
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

export class Load {
  phase = 'start';
  readonly answers: Answer[] = [];
  /** Every code that got a 201, with the URL it was created for. */
  readonly acknowledged = new Map<string, string>();
  /** Creates sent and not answered with a status (their fate is unknown). */
  indeterminate = 0;
  /** The codes read; a test may switch them between phases (say, to codes no one has asked for). */
  cached: readonly string[];
  uncached: readonly string[];
  readonly #base: string;
  readonly #options: LoadOptions;
  readonly #target: (code: string) => string;
  readonly #done: Promise<void[]>;
  readonly #timer: NodeJS.Timeout;
  #running = true;
  #created = 0;

  constructor(base: string, options: LoadOptions) {
    this.#base = base;
    this.#options = options;
    this.phase = options.phase ?? 'start';
    this.cached = options.cached;
    this.uncached = options.uncached;
    this.#target = options.target ?? ((code) => `https://example.com/${code}`);
    this.#timer = setTimeout(() => {
      this.#running = false;
    }, options.maxMs ?? 60_000);
    this.#done = Promise.all([
      ...Array.from({ length: options.readers }, () => this.#reader()),
      ...Array.from({ length: options.creators }, () => this.#creator()),
    ]);
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#done;
  }

  /**
   * Runs the 'recovered' phase until it holds a few answered creates and uncached reads, then
   * stops. The first creates may wait out the write queue's back-off (up to 2 s) after an outage.
   */
  async recoverAndStop(): Promise<void> {
    this.phase = 'recovered';
    await until(
      'creates and uncached reads answered after the recovery',
      async () => this.of('create', 'recovered').length >= 3 && this.of('read', 'recovered').filter((a) => !a.cached).length >= 20,
      8000,
    );
    await this.stop();
  }

  #pick(): { code: string; cached: boolean } {
    const { cached, uncached } = this;
    const uncachedShare = this.#options.uncachedShare ?? 0.5;
    const fromUncached = cached.length === 0 || (uncached.length > 0 && Math.random() < uncachedShare);
    const list = fromUncached ? uncached : cached;
    return { code: list[Math.floor(Math.random() * list.length)] ?? '', cached: !fromUncached };
  }

  async #reader(): Promise<void> {
    while (this.#running) {
      // The phase first: a test switches the codes, then the phase.
      const phase = this.phase;
      const { code, cached } = this.#pick();
      const sentAt = performance.now();
      let answer: Omit<Answer, 'ms'>;
      try {
        const res = await fetch(`${this.#base}/${code}`, {
          redirect: 'manual',
          signal: AbortSignal.timeout(this.#options.requestTimeoutMs ?? 5000),
        });
        const right = res.status === 302 && res.headers.get('location') === this.#target(code);
        const error = res.status >= 400 ? await errorCode(res) : (await res.arrayBuffer(), undefined);
        answer = {
          kind: 'read',
          phase,
          sentAt,
          status: res.status,
          error,
          retryAfter: res.headers.get('retry-after'),
          code,
          cached,
          right,
        };
      } catch (err) {
        answer = { kind: 'read', phase, sentAt, status: 0, error: networkError(err), retryAfter: null, code, cached, right: false };
      }
      this.answers.push({ ...answer, ms: performance.now() - sentAt });
      // Failures come fast; a short pause keeps a failing server from being hammered in a tight loop.
      if (answer.status !== 302) await sleep(5);
    }
  }

  async #creator(): Promise<void> {
    while (this.#running) {
      const answer = await this.#create();
      if (answer.status !== 201) await sleep(5);
    }
  }

  /** Sends `count` creates at once, besides the creators' (say, just before a signal); recorded like theirs. */
  async sendCreates(count: number): Promise<void> {
    await Promise.all(Array.from({ length: count }, () => this.#create()));
  }

  async #create(): Promise<Answer> {
    const url = `https://example.com/${this.#options.label}/${this.#created++}`;
    const phase = this.phase;
    const sentAt = performance.now();
    let answer: Omit<Answer, 'ms'>;
    try {
      const res = await fetch(`${this.#base}/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
        signal: AbortSignal.timeout(this.#options.requestTimeoutMs ?? 5000),
      });
      const retryAfter = res.headers.get('retry-after');
      if (res.status === 201) {
        const body = (await res.json()) as { code: string; url: string };
        this.acknowledged.set(body.code, url);
        answer = {
          kind: 'create',
          phase,
          sentAt,
          status: 201,
          error: undefined,
          retryAfter,
          code: body.code,
          cached: false,
          right: body.url === url,
        };
      } else {
        answer = {
          kind: 'create',
          phase,
          sentAt,
          status: res.status,
          error: await errorCode(res),
          retryAfter,
          code: undefined,
          cached: false,
          right: false,
        };
      }
    } catch (err) {
      this.indeterminate++;
      answer = {
        kind: 'create',
        phase,
        sentAt,
        status: 0,
        error: networkError(err),
        retryAfter: null,
        code: undefined,
        cached: false,
        right: false,
      };
    }
    const answered = { ...answer, url, ms: performance.now() - sentAt };
    this.answers.push(answered);
    return answered;
  }

  /** The answers of one kind, in the given phases (all phases if none given). */
  of(kind: Answer['kind'], ...phases: string[]): Answer[] {
    return this.answers.filter((a) => a.kind === kind && (phases.length === 0 || phases.includes(a.phase)));
  }

  /** A one-line count of statuses (and error codes) per phase and kind, for diagnostics. */
  summary(): string {
    const counts = new Map<string, number>();
    for (const a of this.answers) {
      const key = `${a.phase}/${a.kind}/${a.status}${a.error === undefined ? '' : `:${a.error}`}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].map(([key, n]) => `${key}=${n}`).join(' ');
  }
}

/** The 99th percentile of the answers' latencies, in ms. */
export function p99(answers: readonly Answer[]): number {
  const times = answers.map((a) => a.ms).sort((x, y) => x - y);
  return times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? Number.NaN;
}

/** Short descriptions of the answers that break `ok`, for an assertion message. */
export function offenders(answers: readonly Answer[], ok: (a: Answer) => boolean): string[] {
  return answers.filter((a) => !ok(a)).map((a) => `${a.phase} ${a.kind} ${a.code ?? ''} -> ${a.status} ${a.error ?? ''}`.trim());
}

/** What /readyz says: its status, the breaker, the checks, the Redis tier. */
export interface Readiness {
  status: number;
  breaker: string;
  checks: Record<string, boolean>;
  redis: { redis: string; invalidations: string; unsentInvalidations: number } | 'off';
}

export async function readyz(base: string): Promise<Readiness> {
  const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as Omit<Readiness, 'status'>;
  return { status: res.status, breaker: body.breaker, checks: body.checks, redis: body.redis };
}

/** Asks for each code once (so that it is in the LRU); returns the codes not answered with their 302. */
export async function warm(
  base: string,
  codes: readonly string[],
  target = (code: string) => `https://example.com/${code}`,
): Promise<string[]> {
  const wrong: string[] = [];
  for (const code of codes) {
    const res = await fetch(`${base}/${code}`, { redirect: 'manual', signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    if (res.status !== 302 || res.headers.get('location') !== target(code)) wrong.push(`${code}: ${res.status}`);
  }
  return wrong;
}

/**
 * The acknowledged creates that Postgres does not hold as acknowledged (missing, or with another
 * URL): each must be there, whatever happened to the service after its 201.
 */
export async function lostWrites(databaseUrl: string, acknowledged: ReadonlyMap<string, string>): Promise<string[]> {
  const { rows } = await withClient(databaseUrl, (client) =>
    client.query<{ code: string; url: string }>('SELECT code, url FROM links WHERE code = ANY($1::text[])', [[...acknowledged.keys()]]),
  );
  const stored = new Map(rows.map((row) => [row.code, row.url]));
  return [...acknowledged]
    .filter(([code, url]) => stored.get(code) !== url)
    .map(([code, url]) => `${code} -> ${url}: ${stored.get(code) ?? 'missing'}`);
}

/**
 * Of `creates` that got no 201, those whose link is in Postgres all the same: the server had them,
 * committed them, and did not answer. One it never read (a keep-alive connection closed as idle
 * while the request was on its way, which a client must be ready to retry) leaves no row.
 */
export async function committedUnanswered(
  databaseUrl: string,
  creates: readonly { readonly url?: string | undefined }[],
): Promise<string[]> {
  const urls = creates.map((c) => c.url).filter((url) => url !== undefined);
  if (urls.length === 0) return [];
  const { rows } = await withClient(databaseUrl, (client) =>
    client.query<{ url: string }>('SELECT url FROM links WHERE url = ANY($1::text[])', [urls]),
  );
  return rows.map((row) => row.url);
}

/**
 * The requests in flight at `at` (performance.now()): answered after it, and sent at least
 * `marginMs` before it, time enough for the request to have reached the server.
 */
export function inFlightAt<T extends { readonly sentAt: number; readonly ms: number }>(
  requests: readonly T[],
  at: number,
  marginMs = 0,
): T[] {
  return requests.filter((r) => r.sentAt <= at - marginMs && r.sentAt + r.ms > at);
}

/** One create of a burst: when it was sent (performance.now()), how long it took, and its status or network error. */
export interface BurstCreate {
  /** The target it sent. */
  readonly url: string;
  readonly sentAt: number;
  readonly ms: number;
  /** '201', another status, or the network error's code (ECONNREFUSED, ...). */
  readonly outcome: string;
}

/**
 * Keeps `concurrency` creates in flight (each client sends its next one when the last is answered)
 * until `stop()`. Records every create, and every code that got a 201 with its URL. `send(n)`
 * sends n more at once, besides the clients' (say, just before a signal). Every burst's targets are
 * its own (`label` and a random part): a burst earlier in the same database made links with the
 * same numbers, and a check of "is this target committed" would find those.
 */
export function createBurst(base: string, concurrency: number, label = 'burst') {
  const own = `${label}-${randomUUID().slice(0, 8)}`;
  const acknowledged = new Map<string, string>();
  const creates: BurstCreate[] = [];
  const state = { running: true };
  let n = 0;
  const create = async (): Promise<BurstCreate> => {
    const url = `https://example.com/${own}/${n++}`;
    const sentAt = performance.now();
    let outcome: string;
    try {
      const res = await fetch(`${base}/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      const body = (await res.json()) as { code?: string };
      if (res.status === 201 && body.code !== undefined) acknowledged.set(body.code, url);
      outcome = String(res.status);
    } catch (err) {
      outcome = networkError(err);
    }
    const done = { url, sentAt, ms: performance.now() - sentAt, outcome };
    creates.push(done);
    return done;
  };
  const client = async () => {
    while (state.running) {
      // A refusing server is not hammered in a tight loop.
      if ((await create()).outcome !== '201') await sleep(10);
    }
  };
  const sent: Promise<BurstCreate>[] = [];
  const done = Promise.all(Array.from({ length: concurrency }, client));
  return {
    acknowledged,
    creates,
    send: (count: number): Promise<BurstCreate[]> => {
      const these = Array.from({ length: count }, create);
      sent.push(...these);
      return Promise.all(these);
    },
    stop: async () => {
      state.running = false;
      await Promise.all([done, ...sent]);
    },
  };
}
