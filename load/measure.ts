// Bounded runs of autocannon (in this process) or wrk (a child process, load/wrk.ts), with the
// CPU that each side used during them. Variants compared with
// each other run in alternating rounds, the order reversed every other round (A B, B A, A B ...),
// so that the drift of a shared, noisy machine and the place in a round fall on all of them
// alike; their figures are the totals over the rounds.

import autocannon, { type Request } from 'autocannon';
import { percentiles, roundTo } from './percentiles.ts';
import { cpuSeconds } from './proc.ts';
import { perConnection } from './traffic.ts';
import type { Latency, RunResult } from './types.ts';
import { runWrk, type Wrk } from './wrk.ts';
import { mergeLatency, WRK_OK, WRK_OTHER, type Quantiles } from './wrk-output.ts';

export interface Variant {
  readonly scenario: string;
  readonly variant: string;
  readonly label: string;
  readonly url: string;
  readonly connections: number;
  /**
   * The requests of round `round`, walked in order and split between the connections; each
   * connection cycles through its share unless `amount` stops it first.
   */
  requests(round: number): readonly Request[];
  /** Stop a round after this many responses even if time is left. */
  readonly amount?: number;
  /** Offer this many requests per second in all, instead of as many as possible. */
  readonly overallRate?: number;
  /** The server process, to read its CPU time from /proc. */
  readonly serverPid?: number | undefined;
  /**
   * Drive the run with wrk instead of autocannon (GETs without a body; no `amount`, no `overallRate`).
   * wrk tells responses with a 2xx or 3xx status from the others, not one status from another.
   */
  readonly wrk?: Wrk | undefined;
  /** Set when the figure is informational only (e.g. the server shares a core with the load generator). */
  readonly informational?: string | undefined;
  /** Every counted response's latency (ms) is also pushed here (autocannon only): runs pooled into one figure. */
  readonly latencySink?: number[] | undefined;
  /**
   * Called before each of its runs (warm-up included) and after it, whatever happened: to keep the
   * other variants' servers from working beside it (their timers, their flushes to Postgres).
   */
  readonly alone?: { readonly before: () => Promise<void>; readonly after: () => Promise<void> } | undefined;
}

interface Totals {
  /** Time counted: each run's time after its warm-up. */
  seconds: number;
  latencies: number[];
  /** Per run of wrk: its own latency figures, merged at the end. */
  wrkRuns: { requests: number; latency: Latency; quantiles: Quantiles }[];
  statuses: Record<string, number>;
  errors: number;
  clientCpu: number;
  serverCpu: number | null;
}

/**
 * Runs each variant `rounds` times for `seconds / rounds`, alternating, and totals each one. Each
 * run starts with `warmupMs` that are not counted: opening hundreds of connections at once is
 * not the steady state being measured (it put a 300 ms tail on the first half-second of the
 * create runs, whose steady p99 is 50-70 ms).
 */
export async function compare(variants: readonly Variant[], seconds: number, rounds: number, warmupMs = WARMUP_MS): Promise<RunResult[]> {
  for (const v of variants) {
    if (v.wrk !== undefined && (v.amount !== undefined || v.overallRate !== undefined))
      throw new Error(`${v.label}: wrk runs for a time, at full speed; it has no amount or rate`);
  }
  const totals = variants.map((): Totals => ({
    seconds: 0,
    latencies: [],
    wrkRuns: [],
    statuses: {},
    errors: 0,
    clientCpu: 0,
    serverCpu: 0,
  }));
  // The first run of a round measured lowest, whichever variant it was (hot path with metrics on
  // and off, 3 runs of 6-9 rounds: 0.80x, 0.97x with "on" first; 1.06x with "off" first).
  const order = [...variants.keys()];
  for (let round = 0; round < rounds; round++) {
    for (const i of round % 2 === 0 ? order : order.toReversed()) {
      const variant = variants[i] as Variant;
      await variant.alone?.before();
      try {
        if (variant.wrk === undefined) await runOnce(variant, seconds / rounds, warmupMs, round, totals[i] as Totals);
        else await runWrkOnce(variant, variant.wrk, seconds / rounds, warmupMs, round, totals[i] as Totals);
      } finally {
        await variant.alone?.after();
      }
    }
  }
  return variants.map((variant, i) => toRunResult(variant, totals[i] as Totals));
}

export const WARMUP_MS = 300;

/**
 * Connections of the runs at an offered rate (latency, and the stream's paced pair). Measured on
 * this machine at 6000 req/s against the service: p99 1.8 ms over 10 connections, 2.3 ms over 25,
 * 11.7 ms over 100.
 */
export const LATENCY_CONNECTIONS = 20;

/** One variant, one run. */
export async function measure(variant: Variant, seconds: number, warmupMs = WARMUP_MS): Promise<RunResult> {
  const [run] = await compare([variant], seconds, 1, warmupMs);
  return run as RunResult;
}

async function runOnce(variant: Variant, seconds: number, warmupMs: number, round: number, into: Totals): Promise<void> {
  const connections = variant.connections;
  const slices = perConnection(variant.requests(round), connections);
  const first = slices[0]?.[0];
  if (first === undefined) throw new Error(`${variant.label}: no requests to send`);
  let next = 0;
  let counting = warmupMs === 0;
  let clientBefore = process.cpuUsage();
  let serverBefore = cpuSeconds(variant.serverPid);
  let countedFrom = performance.now();
  const warmup = setTimeout(() => {
    counting = true;
    clientBefore = process.cpuUsage();
    serverBefore = cpuSeconds(variant.serverPid);
    countedFrom = performance.now();
  }, warmupMs);
  const done = await new Promise<autocannon.Result>((resolve, reject) => {
    const tracker = autocannon(
      {
        url: variant.url,
        connections: slices.length,
        duration: seconds + warmupMs / 1000,
        // autocannon ignores `duration` once `amount` is set; the timer below keeps both bounds. It
        // notices that the amount is reached only at its next sample (every second by default),
        // which would count up to a second of idling: sample every 10 ms instead.
        ...(variant.amount === undefined ? {} : { amount: variant.amount, sampleInt: 10 }),
        timeout: 10,
        requests: [first],
        setupClient(client) {
          const index = next++;
          client.setRequests(slices[index % slices.length] ?? []);
          if (variant.overallRate !== undefined) {
            const interval = (1000 * slices.length) / variant.overallRate;
            pace(client as unknown as PacedClient, interval, (interval * index) / slices.length);
          }
        },
      },
      (err, result) => {
        clearTimeout(timer);
        if (err === null || err === undefined) resolve(result);
        else reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
    // Counted here, not from autocannon's totals: its histogram keeps whole milliseconds, only
    // of 2xx answers, and cannot leave out the warm-up.
    tracker.on('response', (_client, status, _bytes, ms) => {
      if (!counting) return;
      into.latencies.push(ms);
      variant.latencySink?.push(ms);
      into.statuses[status] = (into.statuses[status] ?? 0) + 1;
    });
    // With `amount`, this timer is what ends the run on time; without, it is a safety net.
    const stopAfterMs = seconds * 1000 + warmupMs + (variant.amount === undefined ? 1000 : 0);
    const timer = setTimeout(() => tracker.stop(), stopAfterMs);
  });
  clearTimeout(warmup);
  const client = process.cpuUsage(clientBefore);
  const serverAfter = cpuSeconds(variant.serverPid);
  const counted = (performance.now() - countedFrom) / 1000;

  into.errors += done.errors + done.timeouts;
  // A run that ended inside its warm-up (an `amount` reached early) adds no time and no CPU.
  if (!counting) return;
  into.seconds += counted;
  into.clientCpu += (client.user + client.system) / 1e6;
  into.serverCpu =
    into.serverCpu === null || serverBefore === null || serverAfter === null ? null : into.serverCpu + serverAfter - serverBefore;
}

/**
 * One wrk run: a warm-up run of `warmupMs` that is not counted (wrk cannot leave part of a run
 * out of its figures), then the counted one.
 */
async function runWrkOnce(variant: Variant, wrk: Wrk, seconds: number, warmupMs: number, round: number, into: Totals): Promise<void> {
  const requests = variant.requests(round);
  const run = { url: variant.url, connections: variant.connections, requests, serverPid: variant.serverPid, label: variant.label };
  if (warmupMs > 0) await runWrk(wrk, { ...run, ms: warmupMs });
  const { figures, clientCpu, serverCpu, seconds: counted } = await runWrk(wrk, { ...run, ms: seconds * 1000 });
  const { connect, read, write, timeout } = figures.socketErrors;
  into.errors += connect + read + write + timeout;
  into.statuses[WRK_OK] = (into.statuses[WRK_OK] ?? 0) + figures.requests - figures.non2xx3xx;
  if (figures.non2xx3xx > 0) into.statuses[WRK_OTHER] = (into.statuses[WRK_OTHER] ?? 0) + figures.non2xx3xx;
  into.wrkRuns.push({ requests: figures.requests, latency: figures.latency, quantiles: figures.quantiles });
  // Requests over wrk's own time; CPU over the time it was read across (the same span, to a few ms).
  into.seconds += figures.seconds;
  into.clientCpu += (clientCpu / counted) * figures.seconds;
  into.serverCpu = into.serverCpu === null || serverCpu === null ? null : into.serverCpu + (serverCpu / counted) * figures.seconds;
}

function toRunResult(variant: Variant, totals: Totals): RunResult {
  const requests = Object.values(totals.statuses).reduce((a, b) => a + b, 0);
  return {
    scenario: variant.scenario,
    variant: variant.variant,
    label: variant.label,
    generator: variant.wrk === undefined ? 'autocannon' : 'wrk',
    ...(variant.informational === undefined ? {} : { informational: variant.informational }),
    connections: variant.connections,
    offeredRate: variant.overallRate ?? null,
    seconds: roundTo(totals.seconds, 2),
    requests,
    rps: totals.seconds > 0 ? Math.round(requests / totals.seconds) : 0,
    latency: variant.wrk === undefined ? percentiles(totals.latencies) : mergeLatency(totals.wrkRuns),
    statuses: totals.statuses,
    errors: totals.errors,
    // Three places: requests per CPU-second of the server (rps / server), the fair per-core figure,
    // compares runs within a percent; two would round 0.935 and 0.944 alike.
    cpu: {
      client: roundTo(totals.clientCpu / totals.seconds, 3),
      server: totals.serverCpu === null ? null : roundTo(totals.serverCpu / totals.seconds, 3),
    },
  };
}

/** The parts of autocannon's client that pacing replaces (lib/httpClient.js). */
interface PacedClient {
  destroyed: boolean;
  _doRequest(): void;
}

/**
 * Spaces one connection's requests `intervalMs` apart, starting `offsetMs` in. autocannon's own
 * rate limit lets each connection send its whole quota at the start of every second, so a
 * "fixed rate" arrives in bursts, and the latency measured is that of the burst. The schedule is
 * kept when a request is late (those owed go out at once, and meet the queue they cause), but
 * latency is counted from the moment a request is sent: a stall of the load generator itself is
 * not counted (coordinated omission). Counting from the due time instead was tried: on these
 * two cores it measured autocannon's own pauses (p99 218 ms for the bare baseline at 9.4k req/s).
 */
function pace(client: PacedClient, intervalMs: number, offsetMs: number): void {
  // oxlint-disable-next-line no-underscore-dangle -- autocannon's own name for it
  const send = client._doRequest.bind(client);
  const sendIfOpen = (): void => {
    if (!client.destroyed) send();
  };
  let due = performance.now() + offsetMs;
  // oxlint-disable-next-line no-underscore-dangle -- autocannon's own name for it
  client._doRequest = () => {
    const wait = due - performance.now();
    due += intervalMs;
    if (wait <= 0) sendIfOpen();
    else setTimeout(sendIfOpen, wait);
  };
}
