// Target health, the rules (docs/target-health.md): what a probe's answer means, when a link counts
// as broken, and when it is probed again. Pure: no I/O (health/prober.ts probes, health/store.ts keeps).

/** Why a probe got no answer that counts, as stored in last_status (an answer is its status, "404"). */
export const PROBE_FAILURES = [
  'timeout',
  'dns',
  'refused',
  'reset',
  'tls',
  'network',
  'private_address',
  'redirect_loop',
  'too_many_redirects',
  'invalid_redirect',
] as const;
export type ProbeFailure = (typeof PROBE_FAILURES)[number];

/** What one probe found: an HTTP status at the end of the redirect chain, or a failure class. */
export type ProbeResult = { readonly status: number } | { readonly failure: ProbeFailure };

/** A link's health as stored: consecutive failures and whether they made it broken. */
export interface HealthState {
  readonly failures: number;
  readonly broken: boolean;
}

/** What a record of a probe changes, and the event it sends, if any. */
export interface HealthStep extends HealthState {
  readonly event: 'link.target_broken' | 'link.target_recovered' | null;
}

/**
 * Statuses that say the server is there and the page is guarded, not gone: a login (401, 407), a
 * bot guard or a refusal of our user agent (403), a rate limit (429), a legal block (451). Counting
 * them as failures would call broken every page behind a sign-in.
 */
const GUARDED = new Set([401, 403, 407, 429, 451]);

/** Whether an answer's status counts as the target being there. */
export function statusOk(status: number): boolean {
  return (status >= 200 && status < 400) || GUARDED.has(status);
}

/** Whether a HEAD's answer means "ask with GET instead": the method is not allowed, or not implemented. */
export function headRefused(status: number): boolean {
  return status === 405 || status === 501;
}

/** Statuses whose `location` a probe follows. */
export function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

export function resultOk(result: ProbeResult): boolean {
  return 'status' in result && statusOk(result.status);
}

/** The result as last_status and the history show it: the status's digits, or the failure class. */
export function resultText(result: ProbeResult): string {
  return 'status' in result ? String(result.status) : result.failure;
}

/** The state after a probe: a success clears the failures, a failure adds one, and `brokenAfter` in a row make it broken. */
export function nextHealth(previous: HealthState, ok: boolean, brokenAfter: number): HealthStep {
  if (ok) return { failures: 0, broken: false, event: previous.broken ? 'link.target_recovered' : null };
  const failures = previous.failures + 1;
  const broken = previous.broken || failures >= brokenAfter;
  return { failures, broken, event: broken && !previous.broken ? 'link.target_broken' : null };
}

/** A failing link is tried again this soon (at most), to tell a blip from a dead target without waiting a whole interval. */
export const CONFIRM_MS = 5 * 60_000;
/** A broken link is probed at least this often, however long it has been broken. */
export const BROKEN_MAX_MS = 7 * 24 * 3_600_000;

/**
 * How long until the next probe of a link in `state`: the interval while it is well; a quarter of
 * it (at most CONFIRM_MS) while it fails but is not yet broken; once broken, the interval doubled
 * for each failure past `brokenAfter`, up to BROKEN_MAX_MS. Give or take 10 % (`random` in [0, 1)),
 * so that links enrolled together drift apart instead of coming due in the same second forever.
 */
export function nextProbeDelayMs(state: HealthState, intervalMs: number, brokenAfter: number, random: number): number {
  let delay = intervalMs;
  if (state.broken) delay = Math.min(intervalMs * 2 ** Math.min(state.failures - brokenAfter, 20), Math.max(BROKEN_MAX_MS, intervalMs));
  else if (state.failures > 0) delay = Math.min(intervalMs / 4, CONFIRM_MS);
  return Math.max(1000, Math.round(delay * (0.9 + 0.2 * random)));
}

/** The host a probe of `url` is counted against (one probe at a time per host), lower case; undefined if not http(s). */
export function probeHost(url: string): string | undefined {
  const parsed = URL.parse(url);
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') return undefined;
  return parsed.hostname.toLowerCase();
}

/** Probes kept per link for its history. */
export const HISTORY_MAX = 30;
