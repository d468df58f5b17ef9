// GET /domains/:host/check against a real DNS server and real TLS servers on loopback: a domain whose
// CNAME reaches the service and whose certificate is good; one pointing elsewhere or nowhere, with
// the records to set; certificates expired, for another host and from no trusted authority; a
// server that never finishes its handshake; who may check what, and how often.

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { daysLeft, dnsVerdict, recordsToSet } from '../../src/domains/check-rules.ts';
import type { DomainCheckView } from '../../src/domains/check-schemas.ts';
import { bearer, errorOf, startApp } from '../helpers/app.ts';
import { createAuthority, type KeyPair, type TestAuthority } from '../helpers/certificates.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

type Check = Static<typeof DomainCheckView>;

const TARGET = 'edge.example.net';
const DAY_MS = 86_400_000;

let database: TestDatabase;
let dns: DnsServer;
let authority: TestAuthority;
let server: tls.Server;
let app: FastifyInstance;
/** The certificate each name's handshake gets; a name left out never gets an answer (a hung server). */
const certificates = new Map<string, KeyPair>();
const sockets = new Set<Socket>();
const cleanups: (() => Promise<void>)[] = [];
let workspaces = 0;

before(async () => {
  database = await createTestDatabase('domain_check');
  dns = await startDnsServer();
  dns.setRecords(TARGET, 'A', '127.0.0.1');
  authority = createAuthority();
  const other = createAuthority('Nobody Trusts Me');
  const now = Date.now();
  certificates.set('good.example.com', authority.issue(['good.example.com']));
  certificates.set('apex.example.com', authority.issue(['apex.example.com', '*.apex.example.com']));
  certificates.set(
    'expired.example.com',
    authority.issue(['expired.example.com'], { from: new Date(now - 60 * DAY_MS), to: new Date(now - 2 * DAY_MS) }),
  );
  certificates.set('wrong.example.com', authority.issue(['other.example.org']));
  certificates.set('untrusted.example.com', other.issue(['untrusted.example.com']));
  other.remove();
  const contexts = new Map([...certificates].map(([name, pair]) => [name, tls.createSecureContext(pair)]));
  server = tls.createServer({
    ...authority.issue(['fallback.invalid']),
    SNICallback: (name, answer) => {
      const context = contexts.get(name);
      if (context !== undefined) answer(null, context);
    },
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  ({ app } = await startApp({ after: (fn) => cleanups.push(fn) }, database.url, {
    DOMAIN_DNS_RESOLVERS: dns.address,
    DOMAIN_TARGET_HOST: TARGET,
    DOMAIN_CHECK_TLS_PORT: String(port),
    DOMAIN_CHECK_CA_FILE: authority.certFile,
    DOMAIN_CHECK_TIMEOUT_MS: '500',
    DOMAIN_CHECKS_PER_MINUTE: '3',
  }));
});

after(async () => {
  for (const cleanup of cleanups) await cleanup();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  await dns.close();
  authority.remove();
  await database.drop();
});

/** A workspace of its own (checks are counted per workspace) with `hosts` added, and its keys. */
async function workspace(...hosts: string[]) {
  const { keys } = await workspaceWith(database.url, `checks-${++workspaces}`, { admin: 'admin', member: 'member', viewer: 'viewer' });
  for (const host of hosts) {
    const res = await app.inject({ method: 'POST', url: '/domains', headers: bearer(keys.admin), payload: { host } });
    assert.equal(res.statusCode, 201, res.body);
  }
  return keys;
}

async function check(key: { secret: string }, host: string) {
  return app.inject({ url: `/domains/${host}/check`, headers: bearer(key) });
}

async function checked(key: { secret: string }, host: string): Promise<Check> {
  const res = await check(key, host);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Check>();
}

test('a domain whose CNAME reaches the service, with a good certificate, checks ok: where it points, and until when', async () => {
  dns.setRecords('good.example.com', 'CNAME', TARGET);
  const keys = await workspace('good.example.com');
  const result = await checked(keys.member, 'good.example.com');
  assert.equal(result.dns.ok, true, result.dns.summary);
  assert.equal(result.dns.summary, `Points to ${TARGET}`);
  assert.deepEqual(result.dns.found, { cname: [TARGET], a: ['127.0.0.1'], aaaa: [] });
  assert.deepEqual(result.dns.records[0], { type: 'CNAME', name: 'good.example.com', value: TARGET });
  assert.equal(result.tls.ok, true, result.tls.summary);
  assert.equal(result.tls.problem, null);
  assert.equal(result.tls.address, '127.0.0.1');
  const certificate = result.tls.certificate;
  assert.ok(certificate !== null);
  assert.deepEqual(certificate.altNames, ['good.example.com']);
  assert.match(certificate.issuer ?? '', /Test Authority/);
  assert.equal(certificate.daysLeft, 89);
  assert.match(result.tls.summary, /^Certificate valid until \d{1,2} \w+ \d{4} \(89 days\)$/);
});

test('the root of a zone pointing by address to the service checks ok; one pointing elsewhere or nowhere is told the records to set, and no connection is made', async () => {
  dns.setRecords('apex.example.com', 'A', '127.0.0.1');
  dns.setRecords('away.example.com', 'A', '203.0.113.9');
  const keys = await workspace('apex.example.com', 'away.example.com', 'new.example.com');
  const apex = await checked(keys.admin, 'apex.example.com');
  assert.equal(apex.dns.ok, true, apex.dns.summary);
  assert.equal(apex.dns.summary, `Points to ${TARGET}`);
  assert.equal(apex.tls.ok, true, apex.tls.summary);
  assert.deepEqual(apex.tls.certificate?.altNames, ['apex.example.com', '*.apex.example.com']);

  const away = await checked(keys.admin, 'away.example.com');
  assert.equal(away.dns.ok, false);
  assert.equal(away.dns.problem?.code, 'DNS_ELSEWHERE');
  assert.match(away.dns.summary, /points to 203\.0\.113\.9, not to edge\.example\.net/);
  assert.deepEqual(away.dns.records, [
    { type: 'CNAME', name: 'away.example.com', value: TARGET },
    { type: 'A', name: 'away.example.com', value: '127.0.0.1' },
  ]);
  assert.equal(away.tls.problem?.code, 'TLS_NOT_CHECKED');
  assert.equal(away.tls.address, null);

  const fresh = await checked(keys.admin, 'new.example.com');
  assert.equal(fresh.dns.problem?.code, 'DNS_NO_RECORDS');
  assert.deepEqual(fresh.dns.found, { cname: [], a: [], aaaa: [] });
});

test('an expired certificate, one for another host and one no trusted authority signed are each reported as such', async () => {
  const hosts = ['expired.example.com', 'wrong.example.com', 'untrusted.example.com'];
  for (const host of hosts) dns.setRecords(host, 'CNAME', TARGET);
  const keys = await workspace(...hosts);
  const [expired, wrong, untrusted] = await Promise.all(hosts.map((host) => checked(keys.admin, host)));
  assert.equal(expired?.dns.ok, true);
  assert.equal(expired?.tls.ok, false);
  assert.equal(expired?.tls.problem?.code, 'TLS_EXPIRED', expired?.tls.summary);
  assert.match(expired?.tls.summary ?? '', /^The certificate expired on /);
  assert.equal(expired?.tls.certificate?.daysLeft, -2);

  assert.equal(wrong?.tls.problem?.code, 'TLS_WRONG_HOST', wrong?.tls.summary);
  assert.match(wrong?.tls.summary ?? '', /for other\.example\.org, not wrong\.example\.com/);

  assert.equal(untrusted?.tls.problem?.code, 'TLS_UNTRUSTED', untrusted?.tls.summary);
  assert.match(untrusted?.tls.certificate?.issuer ?? '', /Nobody Trusts Me/);
});

test('a server that never finishes its handshake, and DNS servers that do not answer, are answers, not a hanging request', async () => {
  dns.setRecords('hung.example.com', 'CNAME', TARGET);
  const keys = await workspace('hung.example.com', 'quiet.example.com');
  const hung = await checked(keys.admin, 'hung.example.com');
  assert.equal(hung.dns.ok, true);
  assert.equal(hung.tls.problem?.code, 'TLS_TIMEOUT');
  assert.equal(hung.tls.summary, 'The server at 127.0.0.1 did not answer within 500 ms.');

  dns.silent(true);
  try {
    const quiet = await checked(keys.admin, 'quiet.example.com');
    assert.equal(quiet.dns.problem?.code, 'DNS_UNANSWERED');
    assert.equal(quiet.tls.problem?.code, 'TLS_NOT_CHECKED');
  } finally {
    dns.silent(false);
  }
});

test('admins and members check their own workspace’s domains, viewers do not, and a workspace checks a few times a minute', async () => {
  const keys = await workspace('mine.example.com');
  const others = await workspace('theirs.example.com');
  const viewer = await check(keys.viewer, 'mine.example.com');
  assert.equal(viewer.statusCode, 403);
  assert.equal(errorOf(viewer)?.code, 'ROLE_FORBIDDEN');
  const theirs = await check(keys.admin, 'theirs.example.com');
  assert.equal(theirs.statusCode, 404);
  assert.equal(errorOf(theirs)?.code, 'DOMAIN_NOT_FOUND');
  assert.equal((await check(keys.member, 'sho.rt')).statusCode, 200, 'the default domain is every workspace’s');
  // Two checks of the three a minute are spent (the 404 counted too: a look-up was asked for).
  assert.equal((await check(keys.member, 'mine.example.com')).statusCode, 200);
  const limited = await check(keys.member, 'mine.example.com');
  assert.equal(limited.statusCode, 429);
  assert.equal(errorOf(limited)?.code, 'DOMAIN_CHECK_RATE_LIMITED');
  assert.ok(Number(limited.headers['retry-after']) >= 1);
  assert.equal((await check(others.admin, 'theirs.example.com')).statusCode, 200, 'another workspace counts on its own');
});

test('the rules: a CNAME chain that reaches the target points to it whatever the addresses; the records to set; days left', () => {
  const target = { host: TARGET, addresses: [] };
  const chained = dnsVerdict('go.example.com', target, { cname: ['lb.example.org', TARGET], a: [], aaaa: [], unanswered: true });
  assert.deepEqual([chained.ok, chained.summary], [true, `Points to ${TARGET}`]);
  const byAddress = { host: null, addresses: ['192.0.2.1', '2001:db8::1'] };
  assert.equal(dnsVerdict('example.com', byAddress, { cname: [], a: ['192.0.2.1'], aaaa: ['2001:db8::1'], unanswered: false }).ok, true);
  const partly = dnsVerdict('example.com', byAddress, { cname: [], a: ['192.0.2.1', '198.51.100.7'], aaaa: [], unanswered: false });
  assert.equal(partly.problem?.code, 'DNS_ELSEWHERE', 'one address of another server is enough to miss some requests');
  assert.deepEqual(recordsToSet('example.com', { host: TARGET, addresses: ['192.0.2.1', '2001:db8::1'] }), [
    { type: 'CNAME', name: 'example.com', value: TARGET },
    { type: 'A', name: 'example.com', value: '192.0.2.1' },
    { type: 'AAAA', name: 'example.com', value: '2001:db8::1' },
  ]);
  const now = new Date('2026-12-06T12:00:00Z');
  assert.equal(daysLeft(new Date('2027-03-12T00:00:00Z'), now), 95);
  assert.equal(daysLeft(new Date('2026-12-04T11:00:00Z'), now), -2);
});
