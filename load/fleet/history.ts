// What the fleet's clients did and saw, as a Jepsen history: every write to a link with when it
// was sent, when it was answered and how (acknowledged, refused, or unknown: no answer, a 5xx),
// and every redirect with the value it returned. The checks (load/fleet/check.ts) read only this.
// Times are milliseconds since the traffic started.

/** What a redirect can say of a link: its target URL, 'gone' (410: disabled), 'missing' (404). */
export type LinkValue = string;

export const GONE: LinkValue = 'gone';
export const MISSING: LinkValue = 'missing';

export type WriteOutcome = 'ack' | 'refused' | 'unknown';

/** One write to a link: its create (version 0), a new target, a disable, an enable. */
export interface Version {
  value: LinkValue;
  sentAt: number;
  doneAt: number;
  outcome: WriteOutcome;
  /** The instance that answered (HAProxy's header), or null. */
  by: string | null;
}

/** A link's writes, in the order they were sent: the clients write to a link one at a time. */
export interface LinkHistory {
  readonly code: string;
  readonly versions: Version[];
}

/** One redirect through the fleet. */
export interface Read {
  readonly code: string;
  readonly start: number;
  readonly end: number;
  /** A LinkValue, or null when there was no answer of the link (a 5xx, a reset). */
  readonly value: LinkValue | null;
  readonly by: string | null;
}

export type RequestKind = 'redirect' | 'create' | 'bulk' | 'update' | 'disable' | 'enable' | 'stats';

/** Every request, for the error rates: its status (0: no answer) and whether a 503 was the service's documented one. */
export interface Outcome {
  readonly kind: RequestKind;
  readonly start: number;
  readonly end: number;
  readonly status: number;
  /** A 503 with `Retry-After` and a coded JSON error: the service's own, documented answer. */
  readonly documented: boolean;
  /** Of an error: the service's error code, or null (HAProxy's answer, or none). */
  readonly error: string | null;
  readonly by: string | null;
}

export interface History {
  readonly links: Map<string, LinkHistory>;
  readonly reads: Read[];
  readonly outcomes: Outcome[];
}

export function emptyHistory(): History {
  return { links: new Map(), reads: [], outcomes: [] };
}

/** The value a link has after its last write that may have happened (acknowledged or unknown). */
export function possibleFinalValues(link: LinkHistory): Set<LinkValue> {
  const values = new Set<LinkValue>();
  for (let i = link.versions.length - 1; i >= 0; i--) {
    const version = link.versions[i];
    if (version === undefined || version.outcome === 'refused') continue;
    values.add(version.value);
    if (version.outcome === 'ack') break;
  }
  return values;
}
