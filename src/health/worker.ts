// The target health worker, one per instance when HEALTH_PROBES is on. Every second it claims the
// probes the deployment's budget allows (store.ts: HEALTH_PROBE_RATE across all instances, one probe
// at a time per host), starts them (prober.ts), and records the finished ones with the next round;
// every ENROL_EVERY_MS it enrols links the probes do not know yet, and every DIGESTS_EVERY_MS it
// writes the daily digests due (digest-store.ts). runOnce() is the same round,
// awaited to its end: the tests drive it, and no timer is needed to see a probe recorded.

import type { Logger } from 'pino';
import type pg from 'pg';
import type { ProbeResult } from '../core/target-health.ts';
import type { Probe, ProbeOptions } from './prober.ts';
import { sendDigests } from './digest-store.ts';
import { claimProbes, enrol, recordProbes, type ClaimedProbe, type ProbeRecord } from './store.ts';

export interface HealthWorkerDeps {
  readonly pool: pg.Pool;
  probe(url: string, options: ProbeOptions): Promise<Probe>;
  readonly probeOptions: ProbeOptions;
  readonly rate: number;
  readonly intervalMs: number;
  readonly brokenAfter: number;
  readonly log: Logger;
  /** Told of each probe's result (metrics). */
  readonly probed?: ((result: ProbeResult) => void) | undefined;
}

const ROUND_MS = 1000;
const ENROL_EVERY_MS = 10_000;
/** How often the daily digests are looked for: a workspace's comes within this of midnight UTC. */
const DIGESTS_EVERY_MS = 60_000;
/** Probes under way in one instance at most. */
const IN_FLIGHT_MAX = 100;
/** Records kept while Postgres cannot take them; their links are probed again when their lease ends. */
const RECORDS_KEPT = 10_000;

export class HealthWorker {
  readonly #deps: HealthWorkerDeps;
  readonly #leaseMs: number;
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<void> | null = null;
  #probing = new Set<Promise<void>>();
  #records: ProbeRecord[] = [];
  #enrolledAt = -Infinity;
  #digestedAt = -Infinity;
  #failing = false;
  #closed = false;

  constructor(deps: HealthWorkerDeps) {
    this.#deps = deps;
    this.#leaseMs = deps.probeOptions.timeoutMs + 30_000;
  }

  start(): void {
    if (this.#closed || this.#timer !== null) return;
    this.#timer = setInterval(() => {
      if (this.#round !== null) return;
      this.#round = this.#guarded(false).finally(() => {
        this.#round = null;
      });
    }, ROUND_MS);
    this.#timer.unref();
  }

  /** Probes under way in this instance. */
  get inFlight(): number {
    return this.#probing.size;
  }

  /** One round to its end: enrol, claim, probe, record, then the digests due. Returns the probes it recorded. */
  async runOnce(): Promise<ProbeRecord[]> {
    await this.#round;
    await this.#enrolAndClaim(true);
    await Promise.all(this.#probing);
    const records = this.#records;
    await this.#record();
    await this.#digest(true);
    return records;
  }

  /** Stops claiming; waits for the probes under way and records them. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#round;
    await Promise.all(this.#probing);
    try {
      await this.#record();
    } catch (err) {
      this.#deps.log.warn({ err }, 'probe results not recorded at shutdown: those links are probed again when their lease ends');
    }
  }

  async #guarded(enrolNow: boolean): Promise<void> {
    try {
      await this.#record();
      await this.#enrolAndClaim(enrolNow);
      await this.#digest(false);
      if (this.#failing) this.#deps.log.info('target health tables reachable again');
      this.#failing = false;
    } catch (err) {
      if (!this.#failing) this.#deps.log.warn({ err }, 'target health tables could not be read or written: retrying every second');
      this.#failing = true;
    }
  }

  async #enrolAndClaim(enrolNow: boolean): Promise<void> {
    if (this.#closed) return;
    if (enrolNow || performance.now() - this.#enrolledAt >= ENROL_EVERY_MS) {
      this.#enrolledAt = performance.now();
      await enrol(this.#deps.pool);
    }
    const room = IN_FLIGHT_MAX - this.#probing.size;
    if (room <= 0) return;
    const claimed = await claimProbes(this.#deps.pool, {
      max: room,
      rate: this.#deps.rate,
      leaseMs: this.#leaseMs,
      intervalMs: this.#deps.intervalMs,
    });
    for (const link of claimed) this.#dispatch(link);
  }

  async #digest(now: boolean): Promise<void> {
    if (!now && performance.now() - this.#digestedAt < DIGESTS_EVERY_MS) return;
    this.#digestedAt = performance.now();
    await sendDigests(this.#deps.pool);
  }

  #dispatch(link: ClaimedProbe): void {
    const probing = this.#probeOne(link).finally(() => {
      this.#probing.delete(probing);
    });
    this.#probing.add(probing);
  }

  async #probeOne(link: ClaimedProbe): Promise<void> {
    const { result, latencyMs } = await this.#deps.probe(link.url, this.#deps.probeOptions);
    this.#deps.probed?.(result);
    if (this.#records.length >= RECORDS_KEPT) return;
    this.#records.push({ domainId: link.domainId, code: link.code, host: link.host, result, latencyMs });
  }

  async #record(): Promise<void> {
    if (this.#records.length === 0) return;
    const records = this.#records;
    this.#records = [];
    try {
      await recordProbes(this.#deps.pool, records, { intervalMs: this.#deps.intervalMs, brokenAfter: this.#deps.brokenAfter });
    } catch (err) {
      // The probes are kept for the next round; their hosts stay leased until then or until the lease ends.
      this.#records = records.concat(this.#records).slice(0, RECORDS_KEPT);
      throw err;
    }
  }
}
