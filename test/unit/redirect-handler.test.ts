// The redirect handler on a real node:http server, with a fake resolver and an observer that
// throws: every answer is still written whole, and nothing escapes as an uncaught exception or an
// unhandled rejection (either would end the process on Node 24).

import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createLinkCache, entryOf, type CacheEntry } from '../../src/cache/link-cache.ts';
import type { LinkKey } from '../../src/core/domains.ts';
import { HostTable } from '../../src/resolve/hosts.ts';
import { AppError } from '../../src/errors.ts';
import { nodeTransport, redirectPath } from '../../src/edge/node-transport.ts';
import { RedirectHandler } from '../../src/edge/redirect-handler.ts';
import type { RedirectObserver } from '../../src/edge/redirect-observer.ts';
import { testConfig } from '../helpers/app.ts';
import { plainLink } from '../helpers/links.ts';
import { recordEscapes } from '../helpers/escapes.ts';
import { visitorReaders } from '../../src/edge/visitor.ts';
import { memoryLogger } from '../helpers/logs.ts';

const link = (code: string) => plainLink(code);

/** What the fake resolver answers for each code: an entry, or a rejection. */
const LOOKUPS: Record<string, () => Promise<CacheEntry>> = {
  missFound: async () => entryOf(link('missFound'), Date.now()),
  missDown: async () => Promise.reject(new AppError('DATABASE_UNAVAILABLE')),
  missBug: async () => Promise.reject(new TypeError('a bug in a tier')),
};

/** A host table of the default domain alone, never read. */
const DEFAULT_HOSTS = new HostTable({
  defaultHost: 'sho.rt',
  defaultAliases: [],
  read: async () => ({ domains: [], brands: new Map() }),
  verifiedOnly: true,
  log: memoryLogger('error').log,
});

const THROWING: RedirectObserver = {
  now: () => 0,
  cached: () => {},
  answered: () => {
    throw new Error('the observer broke');
  },
};

async function serverWith(observer: RedirectObserver) {
  const cache = createLinkCache(testConfig('postgres://unused'));
  cache.fill('hitCode' as LinkKey, link('hitCode'), Date.now());
  const { log, lines } = memoryLogger('error');
  const deps = {
    hosts: { lookup: () => DEFAULT_HOSTS.defaultDomain, loaded: true },
    unknownHostRedirect: null,
    cache,
    codeSpace: { impossible: () => false },
    resolver: { resolve: (code: string) => (LOOKUPS[code] ?? (async () => entryOf(undefined, 0)))(), inFlight: () => false },
    log,
    slowRequestMs: 1000,
    notFoundLimit: null,
    observer,
    visits: null,
    visitors: visitorReaders(
      (peer = '') => peer,
      () => 'unknown',
    ),
    passKey: Buffer.alloc(32, 1),
    limits: { take: async () => true },
    scheduledAnswer: 'not_yet' as const,
  };
  const handler = new RedirectHandler(
    deps,
    nodeTransport('private, max-age=90', {
      clientOf: () => '127.0.0.1',
      hostOf: (req) => req.headers.host,
    }),
  );
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = redirectPath(req);
    if (path === undefined || !handler.tryPath(req, res, path)) handler.notFound(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const get = (path: string) =>
    new Promise<{ status: number; location: string | undefined; body: string }>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
      })
        .on('error', reject)
        .end();
    });
  return { get, lines, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('an observer that throws: hits, lookups and failed lookups are still answered whole, nothing escapes, each throw is logged', async (t) => {
  const escaped = recordEscapes(t);
  const { get, lines, close } = await serverWith(THROWING);
  t.after(close);

  const answers = [];
  for (const path of ['/hitCode', '/missFound', '/missDown', '/missBug', '/unknownCode', '/']) answers.push({ path, ...(await get(path)) });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const summary = answers.map(({ path, status, location, body }) => ({
    path,
    status,
    location,
    code: body === '' ? undefined : (JSON.parse(body) as { error: { code: string } }).error.code,
  }));
  assert.deepEqual(summary, [
    { path: '/hitCode', status: 302, location: 'https://example.com/hitCode', code: undefined },
    { path: '/missFound', status: 302, location: 'https://example.com/missFound', code: undefined },
    { path: '/missDown', status: 503, location: undefined, code: 'DATABASE_UNAVAILABLE' },
    { path: '/missBug', status: 500, location: undefined, code: 'INTERNAL' },
    { path: '/unknownCode', status: 404, location: undefined, code: 'LINK_NOT_FOUND' },
    { path: '/', status: 404, location: undefined, code: 'LINK_NOT_FOUND' },
  ]);
  assert.deepEqual(escaped, []);
  const broke = lines.filter((line) => (line.err as { message?: string } | undefined)?.message === 'the observer broke');
  assert.equal(broke.length, 6, 'one error line per throw of the observer');
  assert.equal(lines.filter((line) => (line.err as { message?: string } | undefined)?.message === 'a bug in a tier').length, 1);
  assert.ok(lines.every((line) => line.msg === 'redirect failed'));
});
