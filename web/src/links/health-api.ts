// A link's target health (GET and PUT /links/:code/health, docs/target-health.md).
import type { Static } from 'typebox';
import type * as schema from '../../../src/health/schemas.ts';
import * as sdk from '../../../src/client/operations.ts';
import type { Api } from '../api/client.ts';
import { linkRequest, type LinkKey } from './link-key.ts';

export type LinkHealth = Static<typeof schema.LinkHealth>;
export type HealthProbe = LinkHealth['history'][number];

export async function getLinkHealth(api: Api, link: LinkKey, signal?: AbortSignal): Promise<LinkHealth> {
  const { data } = await sdk.getLinksByCodeHealth({ client: api.client, throwOnError: true, ...linkRequest(link), signal: signal ?? null });
  return data;
}

/** Opts the link out of probes (false) or back in (true). */
export async function setLinkProbes(api: Api, link: LinkKey, probes: boolean): Promise<LinkHealth> {
  const { data } = await sdk.putLinksByCodeHealth({ client: api.client, throwOnError: true, ...linkRequest(link), body: { probes } });
  return data;
}

/** A probe's result in words: the HTTP status, or why there was none. */
export function statusWords(status: string | null): string {
  if (status === null) return 'not probed yet';
  if (/^\d{3}$/.test(status)) return `HTTP ${status}`;
  return FAILURE_WORDS[status] ?? status;
}

const FAILURE_WORDS: Readonly<Record<string, string>> = {
  timeout: 'no answer in time',
  dns: 'its name does not resolve',
  refused: 'connection refused',
  reset: 'connection reset',
  tls: 'TLS error',
  network: 'network error',
  private_address: 'a private address (not probed)',
  redirect_loop: 'a redirect loop',
  too_many_redirects: 'too many redirects',
  invalid_redirect: 'a redirect to a URL that is not http(s)',
};
