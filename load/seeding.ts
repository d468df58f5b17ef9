// Links for a run, through the service's own API (POST /links, as a client creates them), each then
// asked for once so that the LRU holds all of them before a hot run; and the hot traffic over them.

import type { Request } from 'autocannon';
import type { Context } from './context.ts';
import { measure } from './measure.ts';
import { LoadError } from './scenario.ts';
import { get, getOn, post, targetUrl, zipfPaths } from './traffic.ts';

const SEED_CONNECTIONS = 400;

type Logs = Pick<Context, 'log' | 'options'>;

/**
 * Seeds `count` links through POST /links, on the domain of host `domain` and with link `options`
 * if given, with API key `key` if given (a link on another domain or with options needs one: a
 * create without a key makes plain links only); returns [code, url] of each one created, and
 * fails unless every one was.
 */
export async function seed(
  context: Logs,
  url: string,
  count: number,
  { domain, options, key }: { domain?: string; options?: object; key?: string } = {},
): Promise<[string, string][]> {
  const links: [string, string][] = [];
  const refused = new Map<string, number>();
  const onResponse = (status: number, body: string) => {
    if (status === 201) {
      const created = JSON.parse(body) as { code: string; url: string };
      links.push([created.code, created.url]);
    } else {
      const code = (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? String(status);
      refused.set(code, (refused.get(code) ?? 0) + 1);
    }
  };
  const body = (i: number) => ({
    url: targetUrl(i),
    ...(domain === undefined ? {} : { domain }),
    ...(options === undefined ? {} : { options }),
  });
  const authorization = key === undefined ? {} : { authorization: `Bearer ${key}` };
  const requests = Array.from({ length: count }, (_, i): Request => {
    const request = post('/links', body(i));
    return { ...request, headers: { ...request.headers, ...authorization }, onResponse };
  });
  // Many connections: creates are group-committed, so more of them in flight seed faster.
  const run = await measure(
    { scenario: 'seed', variant: 'service', label: 'seed', url, connections: SEED_CONNECTIONS, requests: () => requests, amount: count },
    600,
    0,
  );
  // A create answered 503 (a group commit past DB_STATEMENT_TIMEOUT_MS, the server's one core busy with
  // 400 connections) is tried again once, as a client told Retry-After would, at a tenth of the
  // connections; how many were is said, since the seeding is a measure of creates too.
  const unavailable = (refused.get('DATABASE_TIMEOUT') ?? 0) + (refused.get('DATABASE_UNAVAILABLE') ?? 0);
  if (unavailable > 0 && links.length + unavailable === count) {
    const made = new Set(links.map(([, target]) => target));
    const again = requests.filter((_, i) => !made.has(targetUrl(i)));
    refused.clear();
    await measure(
      {
        scenario: 'seed',
        variant: 'service',
        label: 'seed again',
        url,
        connections: SEED_CONNECTIONS / 10,
        requests: () => again,
        amount: again.length,
      },
      600,
      0,
    );
    context.log(`seeding: ${unavailable} creates answered 503 at ${SEED_CONNECTIONS} connections, made on a second try`);
  }
  if (links.length !== count)
    throw new LoadError(
      `seeding created ${links.length} of ${count} links: ${JSON.stringify(run.statuses)} (${JSON.stringify(Object.fromEntries(refused))}), ` +
        `${run.errors} connection errors or timeouts`,
    );
  context.log(`seeded at ${run.rps.toLocaleString('en-US')} links/s`);
  return links;
}

/**
 * Asks for every code once (on `host`'s domain, if given), so that all are in the LRU before a hot
 * run; `copies` times for a cluster, on as many consecutive connections: node:cluster hands
 * connections to its workers in turn, so each worker gets every code (with a connection count
 * that `copies` divides).
 */
export async function warmUp(
  context: Logs,
  url: string,
  codes: readonly string[],
  name: string,
  { copies = 1, host }: { copies?: number; host?: string } = {},
): Promise<void> {
  const request = host === undefined ? get : getOn(host);
  const requests = codes.flatMap((code) => Array.from({ length: copies }, () => request(`/${code}`)));
  const run = await measure(
    {
      scenario: 'hot',
      variant: 'service',
      label: 'warm-up',
      url,
      connections: Math.ceil(context.options.connections / copies) * copies,
      requests: () => requests,
      amount: requests.length,
    },
    600,
    0,
  );
  context.log(`warm-up of ${name}: ${run.requests.toLocaleString('en-US')} requests, ${JSON.stringify(run.statuses)}`);
}

/** The hot traffic over `codes`: a Zipf draw (--zipf-s) of more requests than a run walks in one pass, each made by `request`. */
export function hotPaths(options: Context['options'], codes: readonly string[], request: (path: string) => Request = get): Request[] {
  return zipfPaths(codes, Math.max(20_000, options.connections * 200), options.zipfS, 1).map(request);
}
