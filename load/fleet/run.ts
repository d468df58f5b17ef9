// One fleet run: the fleet up, a webhook receiver, the traffic for a fixed time with the faults
// injected one after another, then the checks against what Postgres, every instance and the
// receiver hold. `npm run fleet` (load/fleet.ts) and test/fleet/fleet.test.ts both call runFleet().

import { setTimeout as sleep } from 'node:timers/promises';
import { withClient } from '../../test/helpers/db.ts';
import { thisMachine } from '../machine.ts';
import { percentiles } from '../percentiles.ts';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver.ts';
import {
  checkClickEvents,
  checkClicks,
  checkCreatesInPostgres,
  checkErrors,
  checkFinalRedirects,
  checkReads,
  checkWebhooks,
  errorsByFault,
  isError,
  windowOf,
  type ReceivedEvent,
} from './check.ts';
import { FAULTS, type FaultContext, type Kill } from './faults.ts';
import { Fleet } from './fleet.ts';
import { emptyHistory, GONE, MISSING, type History, type LinkValue, type Outcome, type Version } from './history.ts';
import { BULK_ITEMS, MIX, Traffic } from './traffic.ts';
import type { Check, FaultWindow, FleetResult, Second } from './types.ts';

/** The README's bound on a stale redirect: 8 s for an instance that hears nothing, plus a replica's lag bound. */
export const STALENESS_BOUND_MS = 8000 + 1000;
/** CLICK_FLUSH_INTERVAL_MS, as the instances run (the default): what a SIGKILL may lose. */
const CLICK_FLUSH_INTERVAL_MS = 5000;

export interface FleetRunOptions {
  /** The least time the traffic runs, s; it runs on until the last fault's window has ended and `tailSeconds` more. */
  readonly seconds: number;
  /** Offered requests a second through HAProxy. */
  readonly rate: number;
  readonly connections: number;
  readonly seedLinks: number;
  /** Traffic before the first fault, between two faults, and after the last, s. */
  readonly warmupSeconds: number;
  readonly gapSeconds: number;
  readonly tailSeconds: number;
  /** How long the standby stays paused and the partition lasts, ms. */
  readonly holdMs: number;
  readonly command: string;
  readonly log: (line: string) => void;
  /** Given the whole history once the checks are done (npm run fleet -- --history FILE writes it). */
  readonly keep?: (history: History) => void;
}

export async function runFleet(options: FleetRunOptions): Promise<FleetResult> {
  const started = new Date();
  const { log } = options;
  const fleet = await Fleet.start({ instances: 3, log });
  const receiver = new WebhookReceiver();
  try {
    await receiver.open();
    receiver.secrets = [await addEndpoint(fleet, receiver.url)];
    const history = emptyHistory();
    const traffic = new Traffic({ url: fleet.haproxy.url, apiKey: fleet.apiKey, connections: options.connections, zipfS: 1.1, history });
    await traffic.seed(options.seedLinks);
    log(`${options.seedLinks} links made; traffic at ${options.rate} requests/s over ${options.connections} connections`);
    traffic.start(options.connections, options.rate);
    const now = () => (performance.now() - traffic.t0) / 1000;
    const kills: Kill[] = [];
    const faults: FaultWindow[] = [];
    const context: FaultContext = {
      fleet,
      now,
      log: (line) => log(`${now().toFixed(1).padStart(6)} s  ${line}`),
      kills,
      holdMs: options.holdMs,
    };
    try {
      await sleep(options.warmupSeconds * 1000);
      for (const fault of FAULTS) {
        context.log(`fault: ${fault.name}`);
        faults.push(await fault.run(context));
        await sleep(options.gapSeconds * 1000);
      }
      await sleep(Math.max(options.tailSeconds - options.gapSeconds, options.seconds - now(), 0) * 1000);
    } finally {
      await traffic.stop();
    }
    const seconds = now();
    log(`traffic stopped at ${seconds.toFixed(1)} s: ${history.outcomes.length} requests`);
    return await verify({ fleet, receiver, traffic, faults, kills, seconds, started, options });
  } finally {
    // A failure to stop is logged, not thrown: it must not hide the run's own error.
    await fleet.stop().catch((error: unknown) => log(`stopping the fleet: ${String(error)}`));
    await receiver.close();
  }
}

async function addEndpoint(fleet: Fleet, url: string): Promise<string> {
  const res = await fetch(`${fleet.haproxy.url}/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fleet.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['link.created', 'link.updated', 'link.clicked'], description: 'fleet test' }),
  });
  if (res.status !== 201) throw new Error(`adding the webhook endpoint: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { secret: string }).secret;
}

interface Verification {
  readonly fleet: Fleet;
  readonly receiver: WebhookReceiver;
  readonly traffic: Traffic;
  readonly faults: readonly FaultWindow[];
  readonly kills: readonly Kill[];
  readonly seconds: number;
  readonly started: Date;
  readonly options: FleetRunOptions;
}

/** The checks, once the fleet is quiet: every write delivered, the bound passed, the clicks flushed. */
async function verify(v: Verification): Promise<FleetResult> {
  const { fleet, receiver, traffic, faults, options, seconds } = v;
  const { history } = traffic;
  const { log } = options;
  const partitioned = fleet.instances.at(-1)?.name;
  // When a write counts as known: its acknowledgement, or the end of a window in which its instance
  // could not reach Redis (the README: the bounds count from when it can again).
  const known = (version: Version): number => {
    const fault = windowOf(faults, version.doneAt);
    const cutOff = fault?.name === 'redis-failover' || (fault?.name === 'redis-partition' && version.by === partitioned);
    return cutOff ? fault.end * 1000 : version.doneAt;
  };

  const acknowledged = [...history.links.values()].flatMap((link) => link.versions.filter((version) => version.outcome === 'ack'));
  const lastKnown = Math.max(0, ...acknowledged.map(known));
  await sleep(Math.max(0, lastKnown + STALENESS_BOUND_MS - (performance.now() - traffic.t0)));
  log('asking every instance for every acknowledged link');
  const finals = new Map<string, ReadonlyMap<string, LinkValue>>();
  for (const instance of fleet.instances) finals.set(instance.name, await finalValues(instance.url, [...history.links.keys()], traffic));

  log('waiting for the webhook deliveries of every acknowledged write');
  const events = await deliveredEvents(receiver, fleet, acknowledged.length);

  // A graceful stop flushes every click; one instance started again delivers the last link.clicked events.
  await Promise.all(fleet.instances.map((instance) => instance.term()));
  const stored = await storedLinks(fleet.databaseUrl);
  const deliverer = fleet.instances[0];
  await deliverer?.start();
  await deliveriesDone(fleet.databaseUrl);
  await deliverer?.term();
  const clicked = clickedEvents(receiver);

  const reads = checkReads(history, STALENESS_BOUND_MS, known);
  const checks: Check[] = [
    checkCreatesInPostgres(history, new Map([...stored].map(([code, link]) => [code, link.value]))),
    checkFinalRedirects(history, finals),
    reads.check,
    checkErrors(history.outcomes, faults, v.kills),
    checkClicks(traffic.served, new Map([...stored].map(([code, link]) => [code, link.clicks])), mayLose(traffic, fleet, v.kills)),
    checkClickEvents(new Map([...stored].map(([code, link]) => [code, link.clicks])), clicked),
    checkWebhooks(
      history,
      events.filter((event) => history.links.has(event.code)),
    ),
    unknownCreatesOnly(
      events.filter((event) => !history.links.has(event.code)),
      traffic.unknownCreates,
    ),
    signatures(receiver),
  ];
  options.keep?.(history);
  const timeline = perSecond(history.outcomes, seconds);
  return {
    startedAt: v.started.toISOString(),
    command: options.command,
    machine: thisMachine(),
    fleet: `${fleet.instances.length} instances behind HAProxy (deploy/haproxy.cfg), Postgres primary + 1 streaming standby, Redis Cluster 3 masters + 3 replicas`,
    traffic:
      `${options.rate} requests/s offered over ${options.connections} connections, Zipf s = 1.1 over the acknowledged links ` +
      `(${options.seedLinks} seeded); mix ${Object.entries(MIX)
        .map(([kind, weight]) => `${kind} ${weight} %`)
        .join(', ')} (bulk: ${BULK_ITEMS} links); staleness bound ${STALENESS_BOUND_MS} ms`,
    seconds: Math.round(seconds),
    requests: history.outcomes.length,
    acknowledgedWrites: acknowledged.length,
    seededLinks: options.seedLinks,
    faults,
    timeline,
    errorsByFault: errorsByFault(history.outcomes, faults, seconds, reads.figures.staleReads),
    checks,
  };
}

/** What one instance answers for each code now (302 target, 410, 404, or the status); 302s count as served clicks. */
async function finalValues(base: string, codes: readonly string[], traffic: Traffic): Promise<Map<string, LinkValue>> {
  const values = new Map<string, LinkValue>();
  for (let i = 0; i < codes.length; i += 50) {
    await Promise.all(
      codes.slice(i, i + 50).map(async (code) => {
        const res = await fetch(`${base}/${code}`, { redirect: 'manual', signal: AbortSignal.timeout(10_000) }).catch(() => null);
        const status = res?.status ?? 0;
        await res?.arrayBuffer().catch(() => {});
        if (status === 302) traffic.served.set(code, (traffic.served.get(code) ?? 0) + 1);
        const value =
          status === 302 ? (res?.headers.get('location') ?? '') : status === 410 ? GONE : status === 404 ? MISSING : `status ${status}`;
        values.set(code, value);
      }),
    );
  }
  return values;
}

function linkEvents(receiver: WebhookReceiver): ReceivedEvent[] {
  return receiver
    .accepted()
    .filter((r) => r.event.type === 'link.created' || r.event.type === 'link.updated')
    .map((r) => {
      const link = r.event.data.link as { code: string; url: string; disabled: boolean };
      return { type: r.event.type, code: link.code, value: link.disabled ? GONE : link.url };
    });
}

/** Waits (up to a minute) until the receiver holds at least `writes` link events; returns them. */
async function deliveredEvents(receiver: WebhookReceiver, fleet: Fleet, writes: number): Promise<ReceivedEvent[]> {
  for (let waited = 0; waited < 60_000 && linkEvents(receiver).length < writes; waited += 250) await sleep(250);
  await deliveriesDone(fleet.databaseUrl);
  return linkEvents(receiver);
}

/** Waits (up to a minute) until no delivery is pending or being sent. */
async function deliveriesDone(databaseUrl: string): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 250) {
    const pending = await withClient(databaseUrl, async (client) => {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM webhook_deliveries WHERE state IN ('pending', 'sending')`,
      );
      return Number(rows[0]?.n ?? 0);
    });
    if (pending === 0) return;
    await sleep(250);
  }
}

function clickedEvents(receiver: WebhookReceiver): Map<string, number> {
  const sums = new Map<string, number>();
  for (const r of receiver.accepted()) {
    if (r.event.type !== 'link.clicked') continue;
    for (const count of r.event.data.counts as { code: string; clicks: number; botClicks: number }[]) {
      sums.set(count.code, (sums.get(count.code) ?? 0) + count.clicks + count.botClicks);
    }
  }
  return sums;
}

async function storedLinks(databaseUrl: string): Promise<Map<string, { value: LinkValue; clicks: number }>> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ code: string; url: string; disabled: boolean; clicks: string }>(
      `SELECT l.code, l.url, l.disabled, coalesce(t.clicks + t.bot_clicks, 0) AS clicks
       FROM links l LEFT JOIN link_totals t ON t.domain_id = l.domain_id AND t.code = l.code`,
    );
    return new Map(rows.map((row) => [row.code, { value: row.disabled ? GONE : row.url, clicks: Number(row.clicks) }]));
  });
}

/** The clicks a SIGKILL may lose: what the killed instance served in its last flush interval (and a second for the flush under way). */
function mayLose(traffic: Traffic, fleet: Fleet, kills: readonly Kill[]): number {
  const victim = fleet.instances[0]?.name ?? '';
  const times = traffic.servedAt.get(victim) ?? [];
  return kills.reduce((sum, kill) => sum + times.filter((t) => t <= kill.gone && t > kill.sent - CLICK_FLUSH_INTERVAL_MS - 1000).length, 0);
}

/** Events for links no answer named may only be creates whose answer was lost. */
function unknownCreatesOnly(events: readonly ReceivedEvent[], unknown: ReadonlySet<string>): Check {
  const broken = events
    .filter((event) => event.type !== 'link.created' || !unknown.has(event.value))
    .map((e) => `${e.type} /${e.code} (${e.value})`);
  return {
    name: 'events for links no client was told of are creates whose answer was lost',
    ok: broken.length === 0,
    detail: `${events.length} such events, ${unknown.size} creates without an answer`,
    examples: broken.slice(0, 5),
  };
}

function signatures(receiver: WebhookReceiver): Check {
  return {
    name: 'every webhook request is signed with the endpoint secret',
    ok: receiver.badSignatures.length === 0 && receiver.received.length > 0,
    detail: `${receiver.received.length} requests received, ${receiver.badSignatures.length} with a bad signature`,
    examples: receiver.badSignatures.slice(0, 5),
  };
}

function perSecond(outcomes: readonly Outcome[], seconds: number): Second[] {
  const buckets = Array.from({ length: Math.ceil(seconds) }, () => ({ latencies: [] as number[], errors: 0, documented503: 0 }));
  for (const outcome of outcomes) {
    const bucket = buckets[Math.floor(outcome.start / 1000)];
    if (bucket === undefined) continue;
    bucket.latencies.push(outcome.end - outcome.start);
    if (isError(outcome)) {
      bucket.errors++;
      if (outcome.status === 503 && outcome.documented) bucket.documented503++;
    }
  }
  return buckets.map((bucket, second) => {
    const { p50, p99 } = percentiles(bucket.latencies);
    return {
      second,
      requests: bucket.latencies.length,
      errors: bucket.errors,
      documented503: bucket.documented503,
      p50Ms: p50,
      p99Ms: p99,
    };
  });
}
