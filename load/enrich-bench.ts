// What click analytics costs off the request path, on one core: how many clicks a second the
// recorder (src/analytics/visits.ts) takes through record() and enrich(), and how many with the
// flush to Postgres after each interval's clicks (addClicks, then addRollupBatch, through a real
// pool, as the click flusher writes them).
//
//   DATABASE_URL=postgres://… taskset -c 1 node load/enrich-bench.ts [--clicks 1500000] [--flush-clicks 250000]
//   DATABASE_URL=postgres://… taskset -c 1 node load/enrich-bench.ts --links 20000 --visitors 10000 --agents 21 --sites 0 --languages 5
//                                        the audience of the analytics scenario (load/scenarios/analytics.ts)
//   … --stages 1                          record + enrich alone, no Postgres flush
//
// The real classes on the service's defaults (ANALYTICS_DIMENSIONS, ANALYTICS_VALUES_MAX,
// CLICK_MAX_CODES): Visits with the shipped country database, the real VisitorSalts reading the
// day's salt through daySalt, a ClickCounter for the counts. The clicks are visitors'
// (load/visitors.ts): links drawn by Zipf rank (s = 1.1) over --links links seeded by SQL into a
// database of its own (dropped at the end), by default 100,000 addresses (--visitors), 1,000
// User-Agent strings (--agents: real ones with varied versions), 300 referring sites besides the
// ~10 common referrers (--sites), 15 languages (--languages), 5 % QR scans.
// Each click's fields are strings made fresh from bytes, as the fast path's parser hands them over
// (a fresh string has no cached hash: every Map lookup hashes it again); record() is called for
// --turn clicks, then the event loop turns (setImmediate), and enrich() runs as it does in the
// service. Each click is counted first, as the redirect counts it (ClickCounter, taken every
// --count-clicks as the flusher takes it), and record() is handed the link's count, where analytics
// keeps the link's slot. The same loop without record() (what the service does with analytics off)
// is timed too, in alternating rounds, and subtracted.
//
// Stage 1, record + enrich: every --flush-clicks clicks the rollups are taken (as the flusher
// does every CLICK_FLUSH_INTERVAL_MS, or ANALYTICS_FLUSH_INTERVAL_MS where the service has it:
// 250,000 clicks is 5 s at 50,000 clicks/s) and dropped.
// Stage 2, enrich + flush: the same, with the counts and rollups taken written to Postgres, the
// flush awaited in line; each flush's time, rows, and the CPU it cost this process and the
// Postgres backend (one connection: its process is read from /proc). Memory is read after a full
// collection: the live heap, and what one interval's rollups hold. The service writes the counts
// through its breaker, and the rollups in a transaction of their own whose statements may take
// 120 s: this pool waits, and says which statements took longer than that.

import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type pg from 'pg';
import { pino } from 'pino';
import { Geo, SHIPPED_DATABASE } from '../src/analytics/geo.ts';
import { VisitorSalts } from '../src/analytics/salts.ts';
import { Visits } from '../src/analytics/visits.ts';
import { loadConfig } from '../src/config/config.ts';
import { utcDay } from '../src/core/day-range.ts';
import { addClicks } from '../src/analytics/click-store.ts';
import { createPool } from '../src/db/pool.ts';
import { trustProxyRule } from '../src/core/trust-proxy.ts';
import { addressOfReader } from '../src/edge/client-address.ts';
import { ClickCounter } from '../src/analytics/click-counter.ts';
import { createTestDatabase, insertRawLinks } from '../test/helpers/db.ts';
import { cpuSeconds } from './proc.ts';
import { randomCodes, seededRandom, zipfSampler } from './traffic.ts';
import { audience } from './visitors.ts';
import { addRollupBatch, daySalt } from '../src/analytics/rollup-store.ts';

const { values } = parseArgs({
  options: {
    clicks: { type: 'string', default: '1500000' },
    'flush-clicks': { type: 'string', default: '250000' },
    // CLICK_FLUSH_INTERVAL_MS (5 s) at 30,000 clicks/s.
    'count-clicks': { type: 'string', default: '150000' },
    turn: { type: 'string', default: '64' },
    links: { type: 'string', default: '10000' },
    visitors: { type: 'string', default: '100000' },
    agents: { type: 'string', default: '1000' },
    // Referring sites besides the ~10 common referrers, and 15 languages or the common 5.
    sites: { type: 'string', default: '300' },
    languages: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '4' },
    // 1: stage 1 alone (no flush to Postgres).
    stages: { type: 'string', default: '2' },
  },
});
const CLICKS = Number(values.clicks);
const FLUSH_CLICKS = Number(values['flush-clicks']);
const COUNT_CLICKS = Number(values['count-clicks']);
const TURN = Number(values.turn);
const LINKS = Number(values.links);
const ROUNDS = Number(values.rounds);
const QR_SHARE = 0.05;
/** The peer of every click: a proxy on loopback, whose X-Forwarded-For names the visitor. */
const PROXY = '127.0.0.1';

// A full collection before each reading of the heap, so that it says what is alive.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const log = pino({ level: 'silent' });
const config = loadConfig({});
const limits = { valuesMax: config.analyticsValuesMax, workspaceValuesMax: 4 * config.analyticsValuesMax };

// The clicks, as indexes into tables of distinct values kept as bytes.
const random = seededRandom(11);
const codes = randomCodes(LINKS, config.codeLength, random, new Set());
const visitors = audience({
  visitors: Number(values.visitors),
  agents: Number(values.agents),
  moreReferrers: Number(values.sites),
  moreLanguages: values.languages !== '5',
  seed: 5,
});
const rank = zipfSampler(LINKS, 1.1, random);
const table = () => {
  const index = new Map<string | undefined, number>();
  const bytes: (Buffer | undefined)[] = [];
  return {
    bytes,
    of(value: string | undefined): number {
      let i = index.get(value);
      if (i === undefined) {
        i = bytes.length;
        index.set(value, i);
        bytes.push(value === undefined ? undefined : Buffer.from(value, 'latin1'));
      }
      return i;
    },
  };
};
const [codeTable, agentTable, refererTable, languageTable, addressTable] = [table(), table(), table(), table(), table()];
const column = () => new Int32Array(CLICKS);
const [linkOf, agentOf, refererOf, languageOf, addressOf] = [column(), column(), column(), column(), column()];
const qrOf = new Uint8Array(CLICKS);
for (const code of codes) codeTable.of(code);
for (let i = 0; i < CLICKS; i++) {
  const click = visitors.click();
  linkOf[i] = rank();
  agentOf[i] = agentTable.of(click.userAgent);
  refererOf[i] = refererTable.of(click.referer);
  languageOf[i] = languageTable.of(click.language);
  addressOf[i] = addressTable.of(click.address);
  qrOf[i] = random() < QR_SHARE ? 1 : 0;
}
const fresh = (bytes: (Buffer | undefined)[], i: number): string | undefined => bytes[i]?.toString('latin1');

const db = await createTestDatabase('enrich');
const pools: pg.Pool[] = [];
try {
  await insertRawLinks(db.url, codes);
  // One connection, so that its backend is the one process to read; no timeout cuts a flush short.
  const pool = createPool(
    db.url,
    { dbPoolMax: 1, dbConnectTimeoutMs: 5000, dbStatementTimeoutMs: 600_000, breakerTimeoutMs: 600_000 },
    log,
  );
  pools.push(pool);
  const statements = timeStatements(pool);
  const salts = new VisitorSalts({ salt: (day, salt) => daySalt(pool, day, salt) }, log);
  await salts.refresh();
  const geo = new Geo(SHIPPED_DATABASE);
  const visits = new Visits({
    parts: config.analyticsDimensions,
    geo,
    salts,
    bounds: { maxLinks: config.clickMaxCodes, valuesMax: config.analyticsValuesMax },
    // The clicks come through a proxy on loopback, as the load suite's analytics scenario sends them.
    addressOf: addressOfReader(trustProxyRule('loopback'), log),
    log,
  });
  const counter = new ClickCounter(config.clickMaxCodes, () => {});
  console.log(
    `${CLICKS.toLocaleString('en-US')} clicks on ${LINKS.toLocaleString('en-US')} links (Zipf 1.1), ` +
      `${addressTable.bytes.length.toLocaleString('en-US')} addresses, ${agentTable.bytes.length} User-Agents, ` +
      `${refererTable.bytes.length} referrers, ${languageTable.bytes.length} languages; ${TURN} clicks a turn, ` +
      `rollups taken every ${FLUSH_CLICKS.toLocaleString('en-US')}; dimensions ${visits.dimensions.join(', ')}; geography ${geo.description}`,
  );

  /** One pass over the clicks: `stage` says what is done with each and at each take. */
  const pass = async (
    stage: 'bare' | 'enrich' | 'flush',
    flushed: FlushFigures[],
    held?: { bytes: number; cells: number },
  ): Promise<{ ms: number; cpuMs: number; flushMs: number; flushCpuMs: number }> => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    let flushMs = 0;
    let flushCpuMs = 0;
    for (let from = 0; from < CLICKS; from += TURN) {
      const to = Math.min(CLICKS, from + TURN);
      for (let i = from; i < to; i++) {
        const key = fresh(codeTable.bytes, linkOf[i] as number) as string;
        const agent = fresh(agentTable.bytes, agentOf[i] as number);
        const referer = fresh(refererTable.bytes, refererOf[i] as number);
        const language = fresh(languageTable.bytes, languageOf[i] as number);
        const address = fresh(addressTable.bytes, addressOf[i] as number) as string;
        const counted = counter.count(key, agent);
        if (stage === 'bare') {
          if (key.length + (agent?.length ?? 0) + (referer?.length ?? 0) + (language?.length ?? 0) + address.length === -1)
            throw new Error();
          continue;
        }
        visits.record(key, counted, agent, referer, language, PROXY, address, qrOf[i] === 1, 0);
      }
      await turn();
      // The counts, as the flusher takes them between its writes (the flush stage writes them).
      if (stage !== 'flush' && (to % COUNT_CLICKS < TURN || to === CLICKS)) counter.take();
      if (to % FLUSH_CLICKS < TURN || to === CLICKS) {
        if (stage === 'enrich' && held !== undefined && held.bytes === 0) {
          // What one interval's rows hold: the live heap before they are made (the log's typed
          // arrays are outside the heap), and with them.
          const before = liveHeap();
          const taken = await visits.take();
          held.bytes = liveHeap() - before;
          held.cells = taken.rows;
        } else if (stage === 'enrich') await visits.take();
        if (stage === 'flush') {
          const figures = await flush(pool, statements, counter, visits);
          flushed.push(figures);
          flushMs += figures.ms;
          flushCpuMs += figures.cpuMs;
        }
      }
    }
    const used = process.cpuUsage(cpu);
    return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, flushMs, flushCpuMs };
  };

  // Stage 1: bare and enrich passes alternate; the first round warms the JIT and the memos up.
  const bare: number[] = [];
  const enriched: number[] = [];
  const held = { bytes: 0, cells: 0 };
  memory('before stage 1 (the clicks made, the links seeded)');
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['bare', 'enrich'] as const) : (['enrich', 'bare'] as const);
    for (const stage of order) {
      const { cpuMs } = await pass(stage, [], stage === 'enrich' && round === ROUNDS - 1 ? held : undefined);
      (stage === 'bare' ? bare : enriched).push(cpuMs);
    }
    memory(`stage 1, round ${round + 1}: bare ${ms(bare.at(-1))} CPU, record + enrich ${ms(enriched.at(-1))} CPU`);
  }
  const kept = (list: number[]) => median(list.length > 1 ? list.slice(1) : list);
  const enrichMs = kept(enriched) - kept(bare);
  console.log(
    `stage 1, record + enrich: ${rate(CLICKS, enrichMs)} clicks/s of one core ` +
      `(${((enrichMs * 1000) / CLICKS).toFixed(2)} µs a click: ${ms(kept(enriched))} CPU with it, ${ms(kept(bare))} without, medians of rounds 2–${ROUNDS})`,
  );
  console.log(
    `  one interval's rollup rows (${FLUSH_CLICKS.toLocaleString('en-US')} clicks, ${held.cells.toLocaleString('en-US')} rows) hold ${mb(held.bytes)} ` +
      `of heap (${Math.round(held.bytes / Math.max(1, held.cells))} B a row)`,
  );

  if (values.stages !== '1') {
    // Stage 2: the same clicks, flushed to Postgres at each take.
    const flushes: FlushFigures[] = [];
    const { cpuMs, ms: wallMs, flushMs, flushCpuMs } = await pass('flush', flushes);
    for (const [i, f] of flushes.entries()) {
      console.log(
        `  flush ${i + 1}: ${f.clicks.toLocaleString('en-US')} clicks, ${f.links.toLocaleString('en-US')} links, ` +
          `${f.rows.toLocaleString('en-US')} rollup rows in ${ms(f.ms)} (this process ${ms(f.cpuMs)} CPU, Postgres ${ms(f.postgresCpuMs)} CPU; ` +
          `statements ${f.statements.map((s) => ms(s)).join(', ')})`,
      );
    }
    // The enrichment: this pass's CPU less its flushes' and the bare loop's.
    const enrichOnlyMs = cpuMs - flushCpuMs - kept(bare);
    const postgresMs = sum(flushes.map((f) => f.postgresCpuMs));
    const timeout = 120_000;
    const late = flushes.filter((f) => Math.max(...f.statements) > timeout).length;
    console.log(
      `stage 2, enrich + flush: ${rate(CLICKS, enrichOnlyMs + flushMs)} clicks/s with each flush awaited in line ` +
        `(enrichment ${ms(enrichOnlyMs)} CPU, flushes ${ms(flushMs)} in all, ${ms(wallMs)} for the pass); ` +
        `this process's CPU alone (enrichment and its side of the flushes, ${ms(flushCpuMs)}): ${rate(CLICKS, enrichOnlyMs + flushCpuMs)} clicks/s; ` +
        `Postgres's backend: ${ms(postgresMs)} CPU, ${rate(CLICKS, postgresMs)} clicks/s of one core`,
    );
    console.log(
      `  the service cancels a statement of the rollups after ${timeout} ms: ${late} of ${flushes.length} flushes would have failed`,
    );
    memory('after stage 2');
  }
} finally {
  for (const pool of pools) await pool.end();
  await db.drop();
}

interface FlushFigures {
  clicks: number;
  links: number;
  rows: number;
  ms: number;
  cpuMs: number;
  postgresCpuMs: number;
  /** Each statement's time, in order: BEGIN, the counts (addClicks), the link rollups, the workspace rollups, COMMIT (and any other the flush runs). */
  statements: number[];
}

/** The counts and rollups taken, written as the click flusher writes them. */
async function flush(pool: pg.Pool, statements: number[], counter: ClickCounter, visits: Visits): Promise<FlushFigures> {
  const backend = Number((await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
  const cpu = process.cpuUsage();
  const postgresBefore = cpuSeconds(backend) ?? 0;
  const started = performance.now();
  const counts = counter.take();
  const rollups = await visits.take();
  statements.length = 0;
  await addClicks(pool, new Map([[utcDay(Date.now()), counts]]));
  await addRollupBatch(pool, rollups, limits);
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  let clicks = 0;
  for (const count of counts.values()) clicks += count.clicks + count.bots;
  return {
    clicks,
    links: counts.size,
    rows: rollups.rows,
    ms: elapsed,
    cpuMs: (used.user + used.system) / 1000,
    postgresCpuMs: ((cpuSeconds(backend) ?? 0) - postgresBefore) * 1000,
    statements: statements.filter((s) => s >= 0),
  };
}

/**
 * Times the statements that clients checked out of `pool` run (inTransaction's: BEGIN, each
 * statement, COMMIT) into the array returned. pool.query() checks its client out with a callback,
 * and queries it with one: those pass through untimed.
 */
function timeStatements(pool: pg.Pool): number[] {
  const times: number[] = [];
  const wrapped = new WeakSet<pg.PoolClient>();
  type Query = (...args: unknown[]) => unknown;
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    if (wrapped.has(client)) return client;
    wrapped.add(client);
    const query = client.query.bind(client) as Query;
    client.query = ((...args: unknown[]) => {
      if (typeof args.at(-1) === 'function') return query(...args);
      const started = performance.now();
      return (query(...args) as Promise<unknown>).finally(() => times.push(performance.now() - started));
    }) as typeof client.query;
    return client;
  };
  const connect = pool.connect.bind(pool) as (
    callback?: (err: Error | undefined, client?: pg.PoolClient, done?: unknown) => void,
  ) => unknown;
  pool.connect = ((callback?: (err: Error | undefined, client?: pg.PoolClient, done?: unknown) => void) =>
    callback === undefined
      ? (connect() as Promise<pg.PoolClient>).then(wrap)
      : connect((err, client, done) => callback(err, client === undefined ? client : wrap(client), done))) as typeof pool.connect;
  return times;
}

function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The heap in use after a full collection. */
function liveHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

function memory(label: string): void {
  const heap = liveHeap();
  console.log(
    `  memory ${label}: rss ${mb(process.memoryUsage().rss)}, live heap ${mb(heap)}, peak rss ${mb(process.resourceUsage().maxRSS * 1024)}`,
  );
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MB`;
}

/** The middle value; of an even count, the mean of the middle two. */
function median(list: readonly number[]): number {
  const sorted = list.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function sum(list: readonly number[]): number {
  return list.reduce((a, b) => a + b, 0);
}

function rate(clicks: number, msTaken: number): string {
  return Math.round((clicks / msTaken) * 1000).toLocaleString('en-US');
}

function ms(value: number | undefined): string {
  return value === undefined ? '—' : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}
