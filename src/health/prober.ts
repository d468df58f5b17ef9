// One probe of a link's target (docs/target-health.md): HEAD, or GET where HEAD is refused (405,
// 501), following redirects by hand up to HEALTH_PROBE_MAX_REDIRECTS, all of it within
// HEALTH_PROBE_TIMEOUT_MS. It is a request this service makes to an address a user chose, so it
// keeps the webhook sender's address rules (webhooks/sender.ts): unless HEALTH_PROBE_ALLOW_PRIVATE,
// an IP literal that is not public is refused before any connection, and every hop's DNS answers
// are filtered to public addresses at connect time. No body is read: the status is the answer.

import http from 'node:http';
import https from 'node:https';
import { headRefused, isRedirect, type ProbeFailure, type ProbeResult } from '../core/target-health.ts';
import { isNonPublicLiteral, publicLookup } from '../webhooks/sender.ts';

export interface ProbeOptions {
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  readonly allowPrivate: boolean;
}

export interface Probe {
  readonly result: ProbeResult;
  readonly latencyMs: number;
}

export const USER_AGENT = 'shortener-health/1 (link target check)';
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH|EPROTO$)/;

/** The class of a request's failure. */
export function probeFailureOf(err: NodeJS.ErrnoException): ProbeFailure {
  const code = err.code ?? '';
  if (code === 'EPRIVATEADDRESS') return 'private_address';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return 'dns';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'reset';
  if (TLS_CODES.test(code)) return 'tls';
  return 'network';
}

/** One request's answer: its status and location, or why there was none. */
type Hop = { status: number; location: string | undefined } | { failure: ProbeFailure };

/** Probes `url`; never rejects. */
export async function probe(url: string, options: ProbeOptions): Promise<Probe> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    const result = await follow(url, options, controller.signal);
    return { result, latencyMs: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

async function follow(start: string, options: ProbeOptions, signal: AbortSignal): Promise<ProbeResult> {
  const seen = new Set<string>();
  let current = URL.parse(start);
  for (let redirects = 0; ; redirects++) {
    if (current === null || (current.protocol !== 'http:' && current.protocol !== 'https:')) return { failure: 'invalid_redirect' };
    if (seen.has(current.href)) return { failure: 'redirect_loop' };
    seen.add(current.href);
    if (!options.allowPrivate && isNonPublicLiteral(current.hostname)) return { failure: 'private_address' };
    let hop = await request(current, 'HEAD', options, signal);
    if ('status' in hop && headRefused(hop.status)) hop = await request(current, 'GET', options, signal);
    if (signal.aborted) return { failure: 'timeout' };
    if ('failure' in hop) return hop;
    if (!isRedirect(hop.status) || hop.location === undefined) return { status: hop.status };
    if (redirects >= options.maxRedirects) return { failure: 'too_many_redirects' };
    current = URL.parse(hop.location, current.href);
  }
}

function request(url: URL, method: 'HEAD' | 'GET', options: ProbeOptions, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve({ failure: 'timeout' });
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method,
      signal,
      // A fresh connection per probe: the hosts are many, and none is asked again soon.
      agent: false,
      headers: { 'user-agent': USER_AGENT, accept: '*/*' },
      ...(options.allowPrivate ? {} : { lookup: publicLookup }),
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(signal.aborted || err.name === 'AbortError' ? { failure: 'timeout' } : { failure: probeFailureOf(err) }),
    );
    req.on('response', (response) => {
      // The status is the answer: the body is never read (at most what arrived with the head).
      resolve({ status: response.statusCode ?? 0, location: response.headers.location });
      response.destroy();
    });
    req.end();
  });
}
