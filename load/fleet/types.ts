// The shape of one fleet run: what `load/results/fleet-<timestamp>.json` holds and what its report
// (load/fleet/report.ts) is drawn from. Times are seconds since the traffic started.

import type { Machine } from '../machine.ts';

/** One injected fault: from the moment it was injected to the moment the fleet was whole again. */
export interface FaultWindow {
  /** Stable name: 'kill-instance', 'term-instance', 'redis-failover', 'standby-pause', 'primary-restart', 'redis-partition'. */
  readonly name: string;
  /** For people: 'SIGKILL of app-1 (restarted)'. */
  readonly label: string;
  readonly start: number;
  readonly end: number;
}

/** What the clients saw in one second of the run (requests counted in the second they started). */
export interface Second {
  readonly second: number;
  readonly requests: number;
  /** Answers with a 5xx or a 4xx status (a redirect's 410 and 404 aside), and requests that got no answer (reset, timeout). */
  readonly errors: number;
  /** Of `errors`, the 503s the service documents (a `Retry-After` and a coded body). */
  readonly documented503: number;
  /** Milliseconds; 0 in a second without requests. */
  readonly p99Ms: number;
  readonly p50Ms: number;
}

/** The errors seen during one fault's window, and outside every window. */
export interface FaultErrors {
  /** A fault's name, or 'none' for the time outside every window. */
  readonly fault: string;
  readonly label: string;
  readonly seconds: number;
  readonly requests: number;
  readonly errors: number;
  readonly documented503: number;
  /** Status (or 'no answer') -> count, of the errors. */
  readonly byStatus: Readonly<Record<string, number>>;
  /** errors / requests; 0 without requests. */
  readonly errorRate: number;
  readonly p99Ms: number;
  /**
   * The longest a redirect served a state after the change that replaced it was acknowledged, ms
   * (0: none stale), of the redirects in this window or of changes acknowledged in it.
   */
  readonly maxStaleMs: number;
}

/** One property the run checks, Jepsen style: what it holds, whether it held, and the counts behind it. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  /** One line of figures: '2,411 acknowledged creates, 2,411 in Postgres, 0 lost'. */
  readonly detail: string;
  /** Up to a few examples of what broke it, for whoever reads the failure. */
  readonly examples: readonly string[];
}

export interface FleetResult {
  readonly startedAt: string;
  readonly command: string;
  readonly machine: Machine;
  /** What ran: '3 instances, HAProxy 2.6.12, Postgres 15.19 + 1 streaming standby, Redis 7.0.15 cluster 3 masters + 3 replicas'. */
  readonly fleet: string;
  /** How the traffic was made: '40 connections, Zipf s = 1.1, mix: 85 % redirects, …'. */
  readonly traffic: string;
  readonly seconds: number;
  readonly requests: number;
  /** Acknowledged creates and changes, the links made before the clock started among them. */
  readonly acknowledgedWrites: number;
  readonly seededLinks: number;
  readonly faults: readonly FaultWindow[];
  readonly timeline: readonly Second[];
  readonly errorsByFault: readonly FaultErrors[];
  readonly checks: readonly Check[];
}
