// Who may take which host name. A workspace admin could add any host as a short domain: the
// default domain's other names (DEFAULT_DOMAIN_HOSTS), and names nobody had shown they control,
// served at once. Now a domain serves nothing until a TXT record `_shortener.<host>` holds its
// token (read from a real DNS server on loopback), a pending claim holds the host for its
// workspace only until it expires, the periodic re-check flags and then stops a domain whose
// record is gone, and no host the deployment serves may be a link's target.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, errorCode, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.ts';
import { until } from '../helpers/wait.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
/** A resolver that answers nothing (the discard port): for the tests that read no record. */
const NO_DNS = '127.0.0.1:9';

before(async () => {
  database = await createTestDatabase('sec_domains');
});
after(async () => {
  await database.drop();
});

type Headers = Record<string, string>;

interface DomainView {
  host: string;
  verification?: { status: string; record: { type: string; name: string; value: string }; failures: number } | null;
}

async function start(t: Cleanup, env: Record<string, string> = {}): Promise<FastifyInstance> {
  return (await startApp(t, database.url, { DOMAIN_DNS_RESOLVERS: NO_DNS, ...env })).app;
}

async function addDomain(app: FastifyInstance, headers: Headers, host: string, more: Record<string, unknown> = {}) {
  return app.inject({ method: 'POST', url: '/domains', headers, payload: { host, ...more } });
}

async function domainOf(app: FastifyInstance, headers: Headers, host: string): Promise<DomainView | undefined> {
  const res = await app.inject({ url: '/domains', headers });
  return res.json<{ domains: DomainView[] }>().domains.find((domain) => domain.host === host);
}

async function visit(app: FastifyInstance, host: string, path: string) {
  const res = await app.inject({ url: path, headers: { host } });
  return { status: res.statusCode, location: res.headers.location, code: res.statusCode >= 400 ? errorCode(res) : undefined };
}

/** A DNS server on loopback, closed after the test. */
async function dnsFor(t: Cleanup): Promise<DnsServer> {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  return dns;
}

test("POST /domains refuses every name of the default domain: BASE_URL's and each of DEFAULT_DOMAIN_HOSTS, however spelled", async (t) => {
  const app = await start(t, { DEFAULT_DOMAIN_HOSTS: 'old.sho.rt,links.internal.example' });
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  for (const host of ['old.sho.rt', 'OLD.Sho.RT.', 'links.internal.example', 'sho.rt']) {
    const res = await addDomain(app, bearer(admin), host);
    assert.equal(res.statusCode, 409, `${host}: ${res.body}`);
    assert.equal(errorCode(res), 'DOMAIN_TAKEN', host);
  }
  // The default domain still answers on its other name.
  assert.equal((await visit(app, 'old.sho.rt', '/nosuchcode')).code, 'LINK_NOT_FOUND');
});

test("a domain a workspace adds serves nothing, and takes no links, until its TXT record holds the domain's token", async (t) => {
  const app = await start(t);
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const headers = bearer(admin);
  const host = 'brand.example.com';
  const added = await addDomain(app, headers, host, { rootRedirect: 'https://brand.example.org/' });
  assert.equal(added.statusCode, 201, added.body);
  // Before any verification: the host is not the deployment's to serve.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(await visit(app, host, '/'), { status: 404, location: undefined, code: 'HOST_NOT_SERVED' });
  const link = await app.inject({ method: 'POST', url: '/links', headers, payload: { url: 'https://example.com/a', domain: host } });
  assert.equal(link.statusCode, 409, link.body);
  assert.equal(errorCode(link), 'DOMAIN_NOT_VERIFIED');
  const view = added.json<DomainView>();
  assert.equal(view.verification?.status, 'pending');
  assert.equal(view.verification?.record.type, 'TXT');
  assert.equal(view.verification?.record.name, `_shortener.${host}`);
  assert.match(view.verification?.record.value ?? '', /^[A-Za-z0-9_-]{24}$/);

  // Another workspace's record, or a wrong value, proves nothing.
  const dns = await dnsFor(t);
  const checked = await start(t, { DOMAIN_DNS_RESOLVERS: dns.address });
  dns.set(`_shortener.${host}`, 'someone-elses-token-000000');
  const wrong = await checked.inject({ method: 'POST', url: `/domains/${host}/verify`, headers });
  assert.equal(wrong.statusCode, 409, wrong.body);
  assert.equal(errorCode(wrong), 'DOMAIN_VERIFICATION_FAILED');
  assert.match(wrong.body, /someone-elses-token/);
  assert.equal((await visit(checked, host, '/')).code, 'HOST_NOT_SERVED');

  dns.set(`_shortener.${host}`, 'v=unrelated', view.verification?.record.value ?? '');
  const verified = await checked.inject({ method: 'POST', url: `/domains/${host}/verify`, headers });
  assert.equal(verified.statusCode, 200, verified.body);
  assert.equal(verified.json<DomainView>().verification?.status, 'verified');
  assert.ok(dns.asked.includes(`_shortener.${host}`));
  assert.deepEqual(await visit(checked, host, '/'), { status: 302, location: 'https://brand.example.org/', code: undefined });
  // The other instance follows within the host table's refresh.
  await until('the other instance serves it', async () => (await visit(app, host, '/')).status === 302, 5000);
  const created = await checked.inject({ method: 'POST', url: '/links', headers, payload: { url: 'https://example.com/a', domain: host } });
  assert.equal(created.statusCode, 201, created.body);
});

test("a workspace's pending claim keeps the host from every other workspace until it expires, and a verified one for good", async (t) => {
  const app = await start(t);
  const a = await workspaceWith(database.url, 'claim-a', { admin: 'admin' });
  const b = await workspaceWith(database.url, 'claim-b', { admin: 'admin' });
  const host = 'claimed.example.com';
  assert.equal((await addDomain(app, bearer(a.keys.admin), host)).statusCode, 201);
  const blocked = await addDomain(app, bearer(b.keys.admin), host);
  assert.equal(blocked.statusCode, 409, blocked.body);
  assert.equal(errorCode(blocked), 'DOMAIN_CLAIM_PENDING');
  // Seven days on (DOMAIN_PENDING_HOURS), the claim is over: B may add it, and holds it now.
  await withClient(database.url, (client) =>
    client.query("UPDATE domains SET created_at = now() - interval '8 days' WHERE host = $1", [host]),
  );
  const taken = await addDomain(app, bearer(b.keys.admin), host);
  assert.equal(taken.statusCode, 201, taken.body);
  assert.equal(errorCode(await addDomain(app, bearer(a.keys.admin), host)), 'DOMAIN_CLAIM_PENDING');

  // A verified domain of B is B's however old, whoever asks.
  const dns = await dnsFor(t);
  const checked = await start(t, { DOMAIN_DNS_RESOLVERS: dns.address });
  dns.set(`_shortener.${host}`, taken.json<DomainView>().verification?.record.value ?? '');
  assert.equal((await checked.inject({ method: 'POST', url: `/domains/${host}/verify`, headers: bearer(b.keys.admin) })).statusCode, 200);
  await withClient(database.url, (client) =>
    client.query("UPDATE domains SET created_at = now() - interval '30 days', verified_at = now() - interval '30 days' WHERE host = $1", [
      host,
    ]),
  );
  assert.equal(errorCode(await addDomain(checked, bearer(a.keys.admin), host)), 'DOMAIN_TAKEN');
});

test('a link may not point at another name of the default domain (DEFAULT_DOMAIN_HOSTS)', async (t) => {
  const app = await start(t, { DEFAULT_DOMAIN_HOSTS: 'old.sho.rt' });
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  for (const url of ['https://old.sho.rt/x', 'http://OLD.sho.rt.:8080/y']) {
    const res = await app.inject({ method: 'POST', url: '/links', headers: bearer(admin), payload: { url } });
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.equal(errorCode(res), 'URL_SELF_REFERENCE', url);
  }
});

test("the API's own names (API_HOSTS) can be neither claimed as a domain nor linked to", async (t) => {
  const app = await start(t, { API_HOSTS: 'api.sho.rt,sho.rt' });
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const claimed = await addDomain(app, bearer(admin), 'API.sho.rt');
  assert.equal(claimed.statusCode, 409, claimed.body);
  assert.equal(errorCode(claimed), 'DOMAIN_TAKEN');
  const linked = await app.inject({ method: 'POST', url: '/links', headers: bearer(admin), payload: { url: 'https://api.sho.rt/links' } });
  assert.equal(linked.statusCode, 400, linked.body);
  assert.equal(errorCode(linked), 'URL_SELF_REFERENCE');
});

test('a link may not point at a verified workspace domain: not when created, changed or imported', async (t) => {
  // DOMAIN_VERIFICATION=false: a domain added is served at once (a private deployment's choice).
  const app = await start(t, { DOMAIN_VERIFICATION: 'false' });
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const headers = bearer(admin);
  const create = (url: string) => app.inject({ method: 'POST', url: '/links', headers, payload: { url } });
  assert.equal((await addDomain(app, headers, 'go.self.example')).statusCode, 201);
  for (const url of ['https://go.self.example/abc', 'http://GO.self.example./x?y=1']) {
    const res = await create(url);
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.equal(errorCode(res), 'URL_SELF_REFERENCE', url);
  }
  const made = await create('https://example.com/fine');
  assert.equal(made.statusCode, 201, made.body);
  const { code } = made.json<{ code: string }>();
  const changed = await app.inject({ method: 'PATCH', url: `/links/${code}`, headers, payload: { url: 'https://go.self.example/c' } });
  assert.equal(changed.statusCode, 400, changed.body);
  assert.equal(errorCode(changed), 'URL_SELF_REFERENCE');
  const imported = await app.inject({
    method: 'POST',
    url: '/links/import?format=auto',
    headers: { ...headers, 'content-type': 'text/csv' },
    payload: 'url,alias\nhttps://go.self.example/i,\nhttps://example.com/i,\n',
  });
  assert.equal(imported.statusCode, 200, imported.body);
  const rows = imported.json<{ results: { status: string; error?: { code: string } }[] }>().results;
  assert.deepEqual(
    rows.map((row) => [row.status, row.error?.code]),
    [
      ['failed', 'URL_SELF_REFERENCE'],
      ['created', undefined],
    ],
  );
  // A subdomain of a served host may be another service.
  assert.equal((await create('https://www.go.self.example/')).statusCode, 201);
});

test('the periodic re-check flags a verified domain whose record is gone, serves it through the grace, then stops it; a DNS outage changes nothing', async (t) => {
  const ws = await workspaceWith(database.url, 'recheck', { admin: 'admin' });
  const headers = bearer(ws.keys.admin);
  const host = 'lapse.example.com';
  const added = await addDomain(await start(t), headers, host, { rootRedirect: 'https://lapse.example.org/' });
  assert.equal(added.statusCode, 201, added.body);
  const token = added.json<DomainView>().verification?.record.value;
  assert.ok(token !== undefined, 'the token to publish is shown on create');
  const dns = await dnsFor(t);
  const app = await start(t, { DOMAIN_DNS_RESOLVERS: dns.address, DOMAIN_CHECK_INTERVAL_SECONDS: '1', DOMAIN_CHECK_GRACE: '2' });
  // The periodic check finds a record published later, without being asked.
  dns.set(`_shortener.${host}`, token);
  await until('served once the record is found', async () => (await visit(app, host, '/')).status === 302);
  assert.equal((await domainOf(app, headers, host))?.verification?.status, 'verified');

  // DNS servers that do not answer: no failure is counted.
  dns.silent(true);
  const outage = await app.inject({ method: 'POST', url: `/domains/${host}/verify`, headers });
  assert.equal(outage.statusCode, 503, outage.body);
  assert.equal(errorCode(outage), 'DOMAIN_DNS_UNAVAILABLE');
  assert.equal((await domainOf(app, headers, host))?.verification?.status, 'verified');
  dns.silent(false);

  // The record removed: flagged failing and still served, then (past 2 failed checks) not served.
  dns.remove(`_shortener.${host}`);
  await until('flagged failing', async () => (await domainOf(app, headers, host))?.verification?.status === 'failing');
  assert.equal((await visit(app, host, '/')).status, 302);
  await until('stopped past the grace', async () => (await domainOf(app, headers, host))?.verification?.status === 'pending', 15_000);
  await until('not served', async () => (await visit(app, host, '/')).code === 'HOST_NOT_SERVED', 5000);
  // Back: served again at the next check.
  dns.set(`_shortener.${host}`, token);
  await until('served again', async () => (await visit(app, host, '/')).status === 302);
});

test('of several instances, one checks each domain per interval (the rows are claimed)', async (t) => {
  const ws = await workspaceWith(database.url, 'fleet', { admin: 'admin' });
  const added = await addDomain(await start(t), bearer(ws.keys.admin), 'fleet.example.com');
  assert.equal(added.statusCode, 201, added.body);
  const token = added.json<DomainView>().verification?.record.value;
  assert.ok(token !== undefined, 'the token to publish is shown on create');
  const dns = await dnsFor(t);
  dns.set('_shortener.fleet.example.com', token);
  const env = { DOMAIN_DNS_RESOLVERS: dns.address, DOMAIN_CHECK_INTERVAL_SECONDS: '2' };
  await Promise.all([start(t, env), start(t, env), start(t, env), start(t, env)]);
  const from = dns.asked.length;
  await new Promise((resolve) => setTimeout(resolve, 6500));
  const asked = dns.asked.slice(from).filter((name) => name === '_shortener.fleet.example.com').length;
  // Four instances, each a round every 2 s: without claims about 12 look-ups; with them one per 2 s.
  assert.ok(asked >= 2 && asked <= 5, `${asked} look-ups in 6.5 s`);
});

test('a stop does not wait for DNS: the look-ups of a round under way are cancelled, before a resolver would give up', async (t) => {
  const ws = await workspaceWith(database.url, 'stopping', { admin: 'admin' });
  const host = 'slow-dns.example.com';
  const added = await addDomain(await start(t), bearer(ws.keys.admin), host);
  assert.equal(added.statusCode, 201, added.body);
  const dns = await dnsFor(t);
  dns.silent(true);
  // Due at once: the add checked it a moment ago, and a round that claims nothing else of it (the
  // other tests' domains, each as long on this silent server) would put its claim past the wait below.
  const since = await withClient(database.url, async (client) => {
    await client.query('UPDATE domains SET last_checked_at = NULL WHERE host = $1', [host]);
    return (await client.query<{ now: Date }>('SELECT now()')).rows[0]?.now;
  });
  const app = await start(t, { DOMAIN_DNS_RESOLVERS: dns.address, DOMAIN_CHECK_INTERVAL_SECONDS: '1' });
  // A round has claimed the domain (its claim stamps last_checked_at before the look-up), whose DNS answers nothing.
  await until('a round is looking the domain up', async () =>
    withClient(database.url, async (client) => {
      const row = await client.query<{ checked: Date | null }>('SELECT last_checked_at AS checked FROM domains WHERE host = $1', [host]);
      return (row.rows[0]?.checked ?? new Date(0)) > (since ?? new Date());
    }),
  );
  // A clock: one try of the same question to the same silent server gives up after 2 s, while the round's
  // look-up (two tries, the second twice as long) would take about 6 s: a stop that waited for it comes second.
  const { Resolver } = await import('node:dns/promises');
  const clock = new Resolver({ timeout: 2000, tries: 1 });
  clock.setServers([dns.address]);
  const order: string[] = [];
  const gaveUp = clock.resolveTxt('_shortener.clock.example').catch(() => order.push('a resolver gave up'));
  await app.close();
  order.push('stopped');
  await gaveUp;
  assert.deepEqual(order, ['stopped', 'a resolver gave up'], 'the stop waited for a look-up nobody answers');
});
