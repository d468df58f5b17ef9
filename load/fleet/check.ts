// The fleet's checks, Jepsen style, as pure functions of the history and of what Postgres, the
// instances and the webhook receiver hold afterwards. Each returns a Check: whether the property
// held, its figures, and a few examples of what broke it.

import { percentiles } from '../percentiles.ts';
import type { Kill } from './faults.ts';
import type { Check, FaultErrors, FaultWindow } from './types.ts';
import { MISSING, possibleFinalValues, type History, type LinkHistory, type LinkValue, type Outcome, type Version } from './history.ts';

const intFmt = new Intl.NumberFormat('en-US');
const n = (value: number) => intFmt.format(value);
const EXAMPLES = 5;

function check(name: string, broken: readonly string[], detail: string): Check {
  return { name, ok: broken.length === 0, detail, examples: broken.slice(0, EXAMPLES) };
}

/** Acknowledged creates: each link created with a 201 (alone or in a bulk). */
export function acknowledgedCreates(history: History): LinkHistory[] {
  return [...history.links.values()].filter((link) => link.versions[0]?.outcome === 'ack');
}

/** Every acknowledged create is in Postgres, with its last possible state. */
export function checkCreatesInPostgres(history: History, postgres: ReadonlyMap<string, LinkValue>): Check {
  const created = acknowledgedCreates(history);
  const broken: string[] = [];
  let lost = 0;
  for (const link of created) {
    const stored = postgres.get(link.code);
    if (stored === undefined) {
      lost++;
      broken.push(`${link.code}: acknowledged at ${link.versions[0]?.doneAt.toFixed(0)} ms, not in Postgres`);
    } else if (!possibleFinalValues(link).has(stored)) {
      broken.push(`${link.code}: Postgres holds ${stored}, the last writes said ${[...possibleFinalValues(link)].join(' or ')}`);
    }
  }
  const writes = [...history.links.values()].reduce((sum, link) => sum + link.versions.filter((v) => v.outcome === 'ack').length, 0);
  return check(
    'every acknowledged write is in Postgres',
    broken,
    `${n(created.length)} acknowledged creates and ${n(writes - created.length)} acknowledged changes; ` +
      `${n(created.length - lost)} links in Postgres, ${n(lost)} lost, ${n(broken.length - lost)} in another state`,
  );
}

/** Afterwards, every instance redirects every acknowledged link to its last state. */
export function checkFinalRedirects(history: History, answers: ReadonlyMap<string, ReadonlyMap<string, LinkValue>>): Check {
  const created = acknowledgedCreates(history);
  const broken: string[] = [];
  let asked = 0;
  for (const [instance, byCode] of answers) {
    for (const link of created) {
      asked++;
      const value = byCode.get(link.code) ?? 'no answer';
      if (!possibleFinalValues(link).has(value))
        broken.push(`${instance} /${link.code}: ${value}, expected ${[...possibleFinalValues(link)].join(' or ')}`);
    }
  }
  return check(
    'every acknowledged link redirects from every instance afterwards',
    broken,
    `${n(created.length)} links asked of ${answers.size} instances (${n(asked)} redirects): ${n(asked - broken.length)} right, ${n(broken.length)} wrong`,
  );
}

/** A redirect that served a replaced state: when it started, and when the change that replaced it was acknowledged. */
export interface StaleRead {
  readonly start: number;
  readonly replacedAt: number;
}

export interface StalenessFigures {
  readonly reads: number;
  /** Reads that returned a state some later acknowledged write had replaced (within the bound or not). */
  readonly stale: number;
  readonly beyondBound: number;
  /** The longest a replaced state was served after the write that replaced it counted as known, ms. */
  readonly maxStalenessMs: number;
  /** Every stale redirect, by the acknowledgement of the write that replaced its state. */
  readonly staleReads: readonly StaleRead[];
}

/**
 * A register check per link. A redirect may return the state of any write sent before it ended
 * (acknowledged or not), unless a later acknowledged write has been known for longer than `boundMs`
 * when the redirect started: then it is stale beyond the bound. `known(version)` is when a write
 * counts as known: its acknowledgement, or later when the README says the bound counts from then
 * (a change made while its instance could not reach Redis). A 404 for an acknowledged link, or a
 * target never written, is wrong whenever it comes.
 */
export function checkReads(
  history: History,
  boundMs: number,
  known: (version: Version) => number,
): { check: Check; figures: StalenessFigures } {
  const broken: string[] = [];
  let reads = 0;
  let stale = 0;
  let beyondBound = 0;
  let maxStalenessMs = 0;
  const staleReads: StaleRead[] = [];
  for (const read of history.reads) {
    if (read.value === null) continue;
    const link = history.links.get(read.code);
    if (link === undefined) continue;
    reads++;
    if (read.value === MISSING) {
      broken.push(
        `${read.by ?? '?'} /${read.code} at ${read.start.toFixed(0)} ms: 404 for a link acknowledged at ${link.versions[0]?.doneAt.toFixed(0)} ms`,
      );
      continue;
    }
    const versions = link.versions;
    // The newest write it can be: the last sent before the read ended with that value.
    let index = -1;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i];
      if (v !== undefined && v.sentAt <= read.end && v.outcome !== 'refused' && v.value === read.value) {
        index = i;
        break;
      }
    }
    if (index === -1) {
      broken.push(`${read.by ?? '?'} /${read.code} at ${read.start.toFixed(0)} ms: ${read.value}, which no write sent before it said`);
      continue;
    }
    // The first acknowledged write after it that was known before the read started.
    let replacedAt = Number.POSITIVE_INFINITY;
    let acknowledgedAt = Number.POSITIVE_INFINITY;
    for (let i = index + 1; i < versions.length; i++) {
      const v = versions[i];
      if (v === undefined || v.outcome !== 'ack') continue;
      replacedAt = Math.min(replacedAt, known(v));
      acknowledgedAt = Math.min(acknowledgedAt, v.doneAt);
    }
    if (acknowledgedAt < read.start) staleReads.push({ start: read.start, replacedAt: acknowledgedAt });
    if (replacedAt >= read.start) continue;
    stale++;
    const staleness = read.start - replacedAt;
    maxStalenessMs = Math.max(maxStalenessMs, staleness);
    if (staleness > boundMs) {
      beyondBound++;
      broken.push(
        `${read.by ?? '?'} /${read.code} at ${read.start.toFixed(0)} ms: ${read.value}, replaced ${staleness.toFixed(0)} ms before (bound ${boundMs} ms)`,
      );
    }
  }
  const figures = { reads, stale, beyondBound, maxStalenessMs, staleReads };
  return {
    check: check(
      `no redirect older than the bound (${boundMs} ms) after a change was acknowledged`,
      broken,
      `${n(reads)} redirects of acknowledged links: ${n(stale)} served a replaced state (at most ${maxStalenessMs.toFixed(0)} ms after), ` +
        `${n(beyondBound)} beyond the bound, ${n(broken.length - beyondBound)} wrong (404, or a target never written)`,
    ),
    figures,
  };
}

/**
 * An answer the fleet counts as an error: a 5xx, no answer, or a 4xx, which no request of the
 * traffic should get (a redirect's 410 is a disabled link's answer; its 404 is the register check's).
 */
export function isError(outcome: Outcome): boolean {
  if (outcome.kind === 'redirect' && (outcome.status === 410 || outcome.status === 404)) return false;
  return outcome.status === 0 || outcome.status >= 400;
}

/** Requests that change a link or need its row: what Postgres being down refuses. */
const NEEDS_PRIMARY: ReadonlySet<string> = new Set(['create', 'bulk', 'update', 'disable', 'enable', 'stats']);
const WRITES: ReadonlySet<string> = new Set(['create', 'bulk', 'update', 'disable', 'enable']);

function statusName(outcome: Outcome): string {
  if (outcome.status === 0) return 'no answer';
  if (outcome.status === 503 && outcome.documented) return `503 ${outcome.error ?? ''}`.trim();
  return outcome.error === null ? `${outcome.status} (HAProxy's)` : `${outcome.status} ${outcome.error}`;
}

/** The window a moment (ms) falls in, or undefined. */
export function windowOf(faults: readonly FaultWindow[], ms: number): FaultWindow | undefined {
  return faults.find((fault) => ms >= fault.start * 1000 && ms <= fault.end * 1000);
}

/** The first window a request overlaps (it may have started before the fault and been caught by it), or undefined. */
export function windowDuring(faults: readonly FaultWindow[], outcome: Outcome): FaultWindow | undefined {
  return faults.find((fault) => outcome.end >= fault.start * 1000 && outcome.start <= fault.end * 1000);
}

/** Requests, errors, p99 and the stalest redirect during each fault's window and outside every window. */
export function errorsByFault(
  outcomes: readonly Outcome[],
  faults: readonly FaultWindow[],
  seconds: number,
  staleReads: readonly StaleRead[] = [],
): FaultErrors[] {
  const stalest = new Map<string, number>();
  for (const read of staleReads) {
    const fault = windowOf(faults, read.start) ?? windowOf(faults, read.replacedAt);
    const name = fault?.name ?? 'none';
    stalest.set(name, Math.max(stalest.get(name) ?? 0, read.start - read.replacedAt));
  }
  const groups = new Map<string, { label: string; seconds: number; outcomes: Outcome[] }>();
  const inside = faults.reduce((sum, f) => sum + (f.end - f.start), 0);
  groups.set('none', { label: 'outside every fault', seconds: Math.max(0, seconds - inside), outcomes: [] });
  for (const fault of faults) groups.set(fault.name, { label: fault.label, seconds: fault.end - fault.start, outcomes: [] });
  for (const outcome of outcomes) groups.get(windowDuring(faults, outcome)?.name ?? 'none')?.outcomes.push(outcome);
  return [...groups].map(([fault, group]) => {
    const errors = group.outcomes.filter(isError);
    const byStatus: Record<string, number> = {};
    for (const error of errors) byStatus[statusName(error)] = (byStatus[statusName(error)] ?? 0) + 1;
    return {
      fault,
      label: group.label,
      seconds: Math.round(group.seconds * 10) / 10,
      requests: group.outcomes.length,
      errors: errors.length,
      documented503: errors.filter((e) => e.status === 503 && e.documented).length,
      byStatus,
      errorRate: group.outcomes.length === 0 ? 0 : errors.length / group.outcomes.length,
      p99Ms: percentiles(group.outcomes.map((o) => o.end - o.start)).p99,
      maxStaleMs: stalest.get(fault) ?? 0,
    };
  });
}

/**
 * What each fault may cost the clients, as the README's table says, and nothing more: while the
 * primary is down, the documented `503 DATABASE_UNAVAILABLE` (or `DATABASE_TIMEOUT`, a create
 * queued through the outage) to what needs it (never to a redirect); at a SIGKILL, a 502 or no answer to the writes it had in flight (HAProxy sends a GET
 * again elsewhere). Nothing during the other faults, nothing outside them.
 */
export function checkErrors(outcomes: readonly Outcome[], faults: readonly FaultWindow[], kills: readonly Kill[]): Check {
  const broken: string[] = [];
  let allowed = 0;
  for (const outcome of outcomes) {
    if (!isError(outcome)) continue;
    const fault = windowDuring(faults, outcome);
    const primaryDown =
      fault?.name === 'primary-restart' &&
      NEEDS_PRIMARY.has(outcome.kind) &&
      outcome.status === 503 &&
      outcome.documented &&
      (outcome.error === 'DATABASE_UNAVAILABLE' || outcome.error === 'DATABASE_TIMEOUT');
    const inFlightAtKill =
      WRITES.has(outcome.kind) &&
      (outcome.status === 502 || outcome.status === 0) &&
      kills.some((kill) => outcome.start <= kill.gone && outcome.end >= kill.sent);
    if (primaryDown || inFlightAtKill) {
      allowed++;
      continue;
    }
    broken.push(
      `${outcome.kind} at ${outcome.start.toFixed(0)} ms (${fault?.name ?? 'outside every fault'}): ${statusName(outcome)} from ${outcome.by ?? 'HAProxy'}`,
    );
  }
  return check(
    'no error but the documented ones during the faults, none outside them',
    broken,
    `${n(outcomes.length)} requests: ${n(allowed)} documented errors during the faults, ${n(broken.length)} others`,
  );
}

/**
 * Clicks counted in Postgres against redirects answered 302: never more (per link), and fewer by
 * at most what the README allows a crash to lose: the killed instance's last
 * CLICK_FLUSH_INTERVAL_MS of clicks (`mayLose`).
 */
export function checkClicks(served: ReadonlyMap<string, number>, counted: ReadonlyMap<string, number>, mayLose: number): Check {
  const broken: string[] = [];
  let servedTotal = 0;
  let countedTotal = 0;
  for (const [code, clicks] of served) {
    servedTotal += clicks;
    const got = counted.get(code) ?? 0;
    if (got > clicks) broken.push(`/${code}: ${got} counted, ${clicks} served`);
  }
  for (const [code, clicks] of counted) {
    countedTotal += clicks;
    if (!served.has(code) && clicks > 0) broken.push(`/${code}: ${clicks} counted, none served`);
  }
  const lost = servedTotal - countedTotal;
  if (lost > mayLose) broken.push(`${n(lost)} clicks lost, at most ${n(mayLose)} allowed`);
  return check(
    'click counts add up to the redirects served, within the loss bound',
    broken,
    `${n(servedTotal)} redirects served, ${n(countedTotal)} counted, ${n(lost)} lost (the bound: ${n(mayLose)}, the killed instance's last flush interval)`,
  );
}

/** A webhook event as the receiver got it: type and the link's data. */
export interface ReceivedEvent {
  readonly type: string;
  readonly code: string;
  readonly value: LinkValue;
}

/**
 * Every acknowledged create and change reached the webhook receiver as its event (`link.created`,
 * `link.updated`), counted per link and state: at least as many events as acknowledged writes, and
 * no more than writes that may have happened (an event may come for a write whose answer was
 * lost, never for one refused or never sent).
 */
export function checkWebhooks(history: History, events: readonly ReceivedEvent[]): Check {
  const key = (type: string, code: string, value: LinkValue) => `${type} /${code} ${value}`;
  const received = new Map<string, number>();
  const acknowledged = new Map<string, number>();
  const possible = new Map<string, number>();
  const add = (map: Map<string, number>, k: string) => map.set(k, (map.get(k) ?? 0) + 1);
  for (const event of events) add(received, key(event.type, event.code, event.value));
  for (const link of history.links.values()) {
    link.versions.forEach((version, i) => {
      const k = key(i === 0 ? 'link.created' : 'link.updated', link.code, version.value);
      if (version.outcome !== 'refused') add(possible, k);
      if (version.outcome === 'ack') add(acknowledged, k);
    });
  }
  const broken: string[] = [];
  let missing = 0;
  for (const [k, count] of acknowledged) {
    const got = received.get(k) ?? 0;
    if (got < count) {
      missing += count - got;
      broken.push(`${k}: ${count} acknowledged, ${got} delivered`);
    }
  }
  let extra = 0;
  for (const [k, got] of received) {
    const most = possible.get(k) ?? 0;
    if (got > most) {
      extra += got - most;
      broken.push(`${k}: ${got} delivered, at most ${most} written`);
    }
  }
  const writes = [...acknowledged.values()].reduce((a, b) => a + b, 0);
  return check(
    'every acknowledged write reached the webhook receiver, once',
    broken,
    `${n(writes)} acknowledged writes, ${n(events.length)} distinct events received, ${n(missing)} missing, ${n(extra)} for no write`,
  );
}

/** The clicks `link.clicked` events reported, per link, are the clicks Postgres counted: the outbox writes them in the same statement. */
export function checkClickEvents(counted: ReadonlyMap<string, number>, reported: ReadonlyMap<string, number>): Check {
  const broken: string[] = [];
  const codes = new Set([...counted.keys(), ...reported.keys()]);
  let countedTotal = 0;
  let reportedTotal = 0;
  for (const code of codes) {
    const c = counted.get(code) ?? 0;
    const r = reported.get(code) ?? 0;
    countedTotal += c;
    reportedTotal += r;
    if (c !== r) broken.push(`/${code}: ${c} counted, ${r} in link.clicked events`);
  }
  return check(
    'link.clicked events add up to the click counts',
    broken,
    `${n(countedTotal)} clicks counted in Postgres, ${n(reportedTotal)} reported by link.clicked events, ${n(broken.length)} links differ`,
  );
}
