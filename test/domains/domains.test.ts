// Branded short domains: the same alias on two domains, each host resolving its own link through the
// fast path and through node:http, on two instances sharing Redis; changes on one domain that never
// touch the other's entry; hosts the deployment does not serve; each domain's fallbacks; and the
// rules of adding and removing domains.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, errorCode, errorOf, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, listenToInvalidations, randomPrefix, SHARED_REDIS_URL, withRedis } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
const prefixes: string[] = [];

before(async () => {
  database = await createTestDatabase('domains');
});
after(async () => {
  for (const prefix of prefixes) await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

function prefixFor(label: string): string {
  const prefix = randomPrefix(label);
  prefixes.push(prefix);
  return prefix;
}

type Headers = Record<string, string>;

/** The redirect the app answers for `path` on `host`: status and location. */
async function visit(app: FastifyInstance, host: string, path: string) {
  const res = await app.inject({ url: path, headers: { host } });
  return { status: res.statusCode, location: res.headers.location, code: res.statusCode >= 400 ? errorCode(res) : undefined };
}

async function addDomain(app: FastifyInstance, headers: Headers, body: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/domains', headers, payload: body });
}

async function create(app: FastifyInstance, headers: Headers, body: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/links', headers, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string; domain: string; shortUrl: string }>();
}

/** DOMAIN_VERIFICATION=false: a domain added is served at once (verification is test/security/domains.test.ts's). */
async function start(t: Cleanup, env: Record<string, string> = {}) {
  return (await startApp(t, database.url, { METRICS_ENABLED: 'true', DOMAIN_VERIFICATION: 'false', ...env })).app;
}

test('the same alias on two domains: each host gets its own target, on the fast path and on node:http, and a host not served gets none', async (t) => {
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const headers = bearer(admin);
  const prefix = prefixFor('dom-two');
  for (const fastPath of ['true', 'false']) {
    await t.test(`FAST_PATH=${fastPath}`, async (sub) => {
      const app = await start(sub, { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix, FAST_PATH: fastPath });
      const host = `spring-${fastPath}.example.com`;
      assert.equal((await addDomain(app, headers, { host })).statusCode, 201);
      const branded = await create(app, headers, { url: 'https://acme.example/spring', alias: `spring-${fastPath}`, domain: host });
      const plain = await create(app, headers, { url: 'https://default.example/spring', alias: `spring-${fastPath}` });
      assert.equal(branded.domain, host);
      assert.equal(branded.shortUrl, `https://${host}/spring-${fastPath}`);
      assert.equal(plain.domain, 'sho.rt');
      assert.equal(plain.shortUrl, `https://sho.rt/spring-${fastPath}`);

      const path = `/spring-${fastPath}`;
      // Twice each: a lookup, then the LRU.
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(await visit(app, host, path), { status: 302, location: 'https://acme.example/spring', code: undefined });
        assert.deepEqual(await visit(app, `${host.toUpperCase()}:443`, path), {
          status: 302,
          location: 'https://acme.example/spring',
          code: undefined,
        });
        assert.deepEqual(await visit(app, 'sho.rt', path), { status: 302, location: 'https://default.example/spring', code: undefined });
        assert.deepEqual(await visit(app, 'elsewhere.example.net', path), { status: 404, location: undefined, code: 'HOST_NOT_SERVED' });
      }
      // A generated code lives on its domain only.
      const generated = await create(app, headers, { url: 'https://acme.example/generated', domain: host });
      assert.equal((await visit(app, host, `/${generated.code}`)).status, 302);
      assert.equal((await visit(app, 'sho.rt', `/${generated.code}`)).status, 404);
      // /healthz is the service's on any host.
      assert.equal((await app.inject({ url: '/healthz', headers: { host: 'elsewhere.example.net' } })).statusCode, 200);
    });
  }
});

test('two instances sharing Redis (one on the fast path, one on node:http): a change on one domain reaches the other instance, and never drops the other domain’s entry', async (t) => {
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const headers = bearer(admin);
  const prefix = prefixFor('dom-pair');
  const env = { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix };
  // A answers redirects on its fast path, B through node:http.
  const a = await start(t, env);
  const b = await start(t, { ...env, FAST_PATH: 'false' });
  const host = 'pair.example.com';
  assert.equal((await addDomain(a, headers, { host })).statusCode, 201);
  // B hears of the domain by its own read of the table (at most 2 s), or at once when a create names it.
  await until('B serves the new domain', async () => (await visit(b, host, '/anything-here')).code === 'LINK_NOT_FOUND', 5000);
  await create(a, headers, { url: 'https://acme.example/v1', alias: 'launch', domain: host });
  await create(a, headers, { url: 'https://default.example/v1', alias: 'launch' });
  assert.equal((await visit(b, host, '/launch')).location, 'https://acme.example/v1');
  assert.equal((await visit(b, 'sho.rt', '/launch')).location, 'https://default.example/v1');
  const missesBefore = b.redirectCounts?.lru[1] ?? Number.NaN;

  const channel = await listenToInvalidations(SHARED_REDIS_URL, prefix);
  t.after(() => channel.stop());
  const changed = await a.inject({
    method: 'PATCH',
    url: `/links/launch?domain=${host}`,
    headers,
    payload: { url: 'https://acme.example/v2' },
  });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.equal(changed.json<{ domain: string }>().domain, host);
  await until(
    'B follows the change on the branded domain',
    async () => (await visit(b, host, '/launch')).location === 'https://acme.example/v2',
  );
  // The message named the branded link's key alone: the default domain's "launch" was never dropped.
  const keys = channel.heard.flatMap((message) => message.codes);
  assert.ok(keys.length > 0, 'an invalidation was heard');
  assert.ok(
    keys.every((key) => key !== 'launch'),
    `no invalidation of the default domain's launch: ${keys.join(' ')}`,
  );
  const missesBetween = b.redirectCounts?.lru[1] ?? Number.NaN;
  assert.equal((await visit(b, 'sho.rt', '/launch')).location, 'https://default.example/v1');
  assert.equal(b.redirectCounts?.lru[1], missesBetween, "the default domain's entry is still in B's LRU");
  assert.ok(missesBetween > missesBefore, "the branded domain's entry was dropped and looked up again");
  // In Redis, each under its own key.
  await withRedis(SHARED_REDIS_URL, async (redis) => {
    const id = await withClient(
      database.url,
      async (client) => (await client.query<{ id: string }>('SELECT id FROM domains WHERE host = $1', [host])).rows[0]?.id,
    );
    assert.match((await redis.get(`${prefix}link:${id}:launch`)) ?? '', / https:\/\/acme\.example\/v2$/);
    assert.match((await redis.get(`${prefix}link:launch`)) ?? '', / https:\/\/default\.example\/v1$/);
  });
});

test("each domain's fallbacks: its root, unknown codes, expired and disabled links; and a host not served", async (t) => {
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const headers = bearer(admin);
  const app = await start(t, { UNKNOWN_HOST_REDIRECT: 'https://www.example.org/no-such-domain' });
  const host = 'fall.example.com';
  const added = await addDomain(app, headers, {
    host,
    rootRedirect: 'https://acme.example/',
    notFoundRedirect: 'https://acme.example/404',
    expiredRedirect: 'https://acme.example/gone',
  });
  assert.equal(added.statusCode, 201, added.body);
  const bare = 'bare.example.com';
  assert.equal((await addDomain(app, headers, { host: bare })).statusCode, 201);

  await create(app, headers, { url: 'https://acme.example/off', alias: 'switched-off', domain: host });
  await create(app, headers, { url: 'https://acme.example/off', alias: 'switched-off', domain: bare });
  for (const domain of [host, bare]) {
    const res = await app.inject({ method: 'PATCH', url: `/links/switched-off?domain=${domain}`, headers, payload: { disabled: true } });
    assert.equal(res.statusCode, 200, res.body);
  }
  const soon = new Date(Date.now() + 1500).toISOString();
  await create(app, headers, { url: 'https://acme.example/soon', alias: 'short-lived', domain: host, expiresAt: soon });

  assert.deepEqual(await visit(app, host, '/'), { status: 302, location: 'https://acme.example/', code: undefined });
  assert.deepEqual(await visit(app, host, '/no-such-code'), { status: 302, location: 'https://acme.example/404', code: undefined });
  assert.deepEqual(await visit(app, host, '/not.a.code'), { status: 302, location: 'https://acme.example/404', code: undefined });
  assert.deepEqual(await visit(app, host, '/switched-off'), { status: 302, location: 'https://acme.example/gone', code: undefined });
  await until('the link expires', async () => (await visit(app, host, '/short-lived')).location === 'https://acme.example/gone', 5000);
  // Without fallbacks: the service's own answers. The default domain's root is ROOT_REDIRECT.
  assert.equal((await visit(app, bare, '/')).code, 'ROUTE_NOT_FOUND');
  assert.deepEqual(await visit(app, bare, '/no-such-code'), { status: 404, location: undefined, code: 'LINK_NOT_FOUND' });
  assert.deepEqual(await visit(app, bare, '/switched-off'), { status: 410, location: undefined, code: 'LINK_DISABLED' });
  assert.deepEqual(await visit(app, 'sho.rt', '/'), { status: 302, location: '/app/', code: undefined });
  // A host no domain has: UNKNOWN_HOST_REDIRECT, for its root and its codes alike.
  assert.deepEqual(await visit(app, 'stranger.example.net', '/switched-off'), {
    status: 302,
    location: 'https://www.example.org/no-such-domain',
    code: undefined,
  });
  assert.equal((await visit(app, 'stranger.example.net', '/')).code, 'HOST_NOT_SERVED');
  // A fallback is no click on a link.
  const clicked = async () => {
    await app.clicks.flush();
    return withClient(database.url, async (client) => {
      const { rows } = await client.query<{ clicks: string }>(
        "SELECT coalesce(sum(clicks), 0) AS clicks FROM link_totals WHERE code IN ('switched-off', 'short-lived')",
      );
      return Number(rows[0]?.clicks);
    });
  };
  const clicksBefore = await clicked();
  for (let i = 0; i < 3; i++) {
    assert.equal((await visit(app, host, '/switched-off')).location, 'https://acme.example/gone');
    assert.equal((await visit(app, host, '/short-lived')).location, 'https://acme.example/gone');
  }
  assert.equal(await clicked(), clicksBefore);

  // Fallbacks are checked like link targets, and the error names the field.
  const bad = await app.inject({ method: 'PATCH', url: `/domains/${host}`, headers, payload: { notFoundRedirect: 'javascript:alert(1)' } });
  assert.equal(bad.statusCode, 400);
  assert.equal(errorOf(bad)?.code, 'URL_SCHEME_NOT_ALLOWED');
  assert.equal(bad.json<{ error: { field?: string } }>().error.field, 'notFoundRedirect');
  const cleared = await app.inject({ method: 'PATCH', url: `/domains/${host}`, headers, payload: { notFoundRedirect: null } });
  assert.equal(cleared.statusCode, 200, cleared.body);
  assert.equal(cleared.json<{ notFoundRedirect: string | null }>().notFoundRedirect, null);
  assert.equal((await visit(app, host, '/still-no-such-code')).code, 'LINK_NOT_FOUND');
});

test('host names are normalised and checked; a domain is one workspace’s, and only admins manage it', async (t) => {
  const { admin, member } = await keysWith(database.url, { admin: 'admin', member: 'member' });
  const other = await workspaceWith(database.url, 'domains-other', { otherAdmin: 'admin' });
  const app = await start(t);
  const headers = bearer(admin);

  const idn = await addDomain(app, headers, { host: '  Bücher.Example.COM. ' });
  assert.equal(idn.statusCode, 201, idn.body);
  assert.equal(idn.json<{ host: string }>().host, 'xn--bcher-kva.example.com');
  for (const host of [
    '',
    'https://go.example.com',
    'go.example.com:8443',
    'go.example.com/path',
    '10.0.0.1',
    'localhost',
    '-bad.example.com',
    'a..b.com',
  ]) {
    const res = await addDomain(app, headers, { host });
    assert.equal(res.statusCode, 400, `${host}: ${res.body}`);
    assert.equal(errorCode(res), 'DOMAIN_INVALID', host);
  }
  for (const host of ['xn--bcher-kva.example.com', 'SHO.RT', '127.0.0.1']) {
    const res = await addDomain(app, headers, { host });
    assert.ok(res.statusCode === 409 || (host === '127.0.0.1' && res.statusCode === 400), `${host}: ${res.body}`);
  }
  assert.equal(errorCode(await addDomain(app, bearer(other.keys.otherAdmin), { host: 'xn--bcher-kva.example.com' })), 'DOMAIN_TAKEN');
  assert.equal((await addDomain(app, bearer(member), { host: 'member.example.com' })).statusCode, 403);

  // Another workspace neither sees it nor puts links on it.
  const theirs = await app.inject({ url: '/domains', headers: bearer(other.keys.otherAdmin) });
  assert.deepEqual(
    theirs.json<{ domains: { host: string }[] }>().domains.map((domain) => domain.host),
    ['sho.rt'],
  );
  const refused = await app.inject({
    method: 'POST',
    url: '/links',
    headers: bearer(other.keys.otherAdmin),
    payload: { url: 'https://example.com/x', domain: 'xn--bcher-kva.example.com' },
  });
  assert.equal(errorCode(refused), 'DOMAIN_UNKNOWN');
  const ours = await app.inject({ url: '/domains', headers: bearer(member) });
  const listed = ours.json<{ domains: { host: string; isDefault: boolean }[] }>().domains;
  assert.deepEqual(listed[0], { ...listed[0], host: 'sho.rt', isDefault: true });
  assert.ok(listed.some((domain) => domain.host === 'xn--bcher-kva.example.com'));
  // The IDN form is taken as well as the punycode one.
  const created = await create(app, bearer(member), { url: 'https://example.com/buch', domain: 'bücher.example.com' });
  assert.equal(created.domain, 'xn--bcher-kva.example.com');
});

test('removing a domain: refused while links are on it; with its links moved they answer on the other host; an alias there already blocks the move', async (t) => {
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const headers = bearer(admin);
  const prefix = prefixFor('dom-remove');
  const app = await start(t, { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix });
  const from = 'old.example.com';
  const to = 'new.example.com';
  for (const host of [from, to]) assert.equal((await addDomain(app, headers, { host })).statusCode, 201);
  await create(app, headers, { url: 'https://acme.example/keep', alias: 'keep-me', domain: from });
  await create(app, headers, { url: 'https://acme.example/clash', alias: 'clash', domain: from });
  await create(app, headers, { url: 'https://acme.example/other-clash', alias: 'clash', domain: to });
  // Looked up once on each host, so that caches hold them.
  assert.equal((await visit(app, from, '/keep-me')).status, 302);
  assert.equal((await visit(app, to, '/keep-me')).code, 'LINK_NOT_FOUND');

  assert.equal(errorCode(await app.inject({ method: 'DELETE', url: `/domains/${from}`, headers })), 'DOMAIN_IN_USE');
  const conflict = await app.inject({ method: 'DELETE', url: `/domains/${from}?moveLinksTo=${to}`, headers });
  assert.equal(errorCode(conflict), 'DOMAIN_MOVE_CONFLICT');
  assert.match(errorOf(conflict)?.message ?? '', /clash/);
  assert.equal((await visit(app, from, '/keep-me')).status, 302, 'nothing moved');
  assert.equal(errorCode(await app.inject({ method: 'DELETE', url: '/domains/sho.rt', headers })), 'DOMAIN_DEFAULT');
  assert.equal(errorCode(await app.inject({ method: 'DELETE', url: '/domains/never.example.com', headers })), 'DOMAIN_NOT_FOUND');

  const deleted = await app.inject({ method: 'DELETE', url: `/links/clash?domain=${from}`, headers });
  assert.equal(deleted.statusCode, 204);
  const moved = await app.inject({ method: 'DELETE', url: `/domains/${from}?moveLinksTo=${to}`, headers });
  assert.equal(moved.statusCode, 204, moved.body);
  assert.deepEqual(await visit(app, to, '/keep-me'), { status: 302, location: 'https://acme.example/keep', code: undefined });
  assert.equal((await visit(app, to, '/clash')).location, 'https://acme.example/other-clash');
  assert.equal((await visit(app, from, '/keep-me')).code, 'HOST_NOT_SERVED');
  const details = await app.inject({ url: `/links/keep-me?domain=${to}`, headers });
  assert.equal(details.json<{ shortUrl: string }>().shortUrl, `https://${to}/keep-me`);
  const listed = await app.inject({ url: `/links?domain=${to}`, headers });
  assert.deepEqual(
    listed
      .json<{ links: { code: string }[] }>()
      .links.map((link) => link.code)
      .sort(),
    ['clash', 'keep-me'],
  );
  // A domain without live links goes without a move.
  const empty = 'empty.example.com';
  assert.equal((await addDomain(app, headers, { host: empty })).statusCode, 201);
  assert.equal((await app.inject({ method: 'DELETE', url: `/domains/${empty}`, headers })).statusCode, 204);
});

test('a forwarded host counts only from a proxy TRUST_PROXY trusts', async (t) => {
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const headers = bearer(admin);
  const trusting = await start(t, { TRUST_PROXY: 'loopback' });
  const host = 'proxied.example.com';
  assert.equal((await addDomain(trusting, headers, { host })).statusCode, 201);
  await create(trusting, headers, { url: 'https://acme.example/proxied', alias: 'behind-proxy', domain: host });
  const forwarded = { host: 'internal-lb:8080', 'x-forwarded-host': `attacker.example, ${host}` };
  const res = await trusting.inject({ url: '/behind-proxy', headers: forwarded });
  assert.equal(res.headers.location, 'https://acme.example/proxied');
  const plain = await start(t);
  const ignored = await plain.inject({ url: '/behind-proxy', headers: forwarded });
  assert.equal(errorCode(ignored), 'HOST_NOT_SERVED', 'the Host decides without TRUST_PROXY');
});

test('a link on a domain another instance added a moment ago is shown on that domain, before this instance has read the domains again', async (t) => {
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const headers = bearer(admin);
  const a = await start(t);
  const b = await start(t);
  // B reads the table of domains no more from here on (it would within 2 s).
  b.hosts.stop();
  const host = 'fresh.example.com';
  assert.equal((await addDomain(a, headers, { host })).statusCode, 201);
  const created = await create(a, headers, { url: 'https://acme.example/fresh', alias: 'fresh-one', domain: host });
  const listed = await b.inject({ url: '/links?q=fresh-one', headers });
  const [link] = listed.json<{ links: { code: string; domain: string; shortUrl: string }[] }>().links;
  assert.deepEqual({ domain: link?.domain, shortUrl: link?.shortUrl }, { domain: host, shortUrl: created.shortUrl });
  assert.equal(b.hosts.byHost(host), undefined, 'B had not heard of the domain');
});

test('DOMAIN_VERIFICATION=false serves every domain, a pending one too, and a check of one marks it verified', async (t) => {
  const host = 'unchecked.example.com';
  await withClient(database.url, (client) =>
    client.query("INSERT INTO domains (workspace_id, host, verification_status) VALUES (1, $1, 'pending')", [host]),
  );
  const app = await start(t);
  assert.equal((await visit(app, host, '/nosuchcode')).code, 'LINK_NOT_FOUND');
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const res = await app.inject({ method: 'POST', url: `/domains/${host}/verify`, headers: bearer(admin) });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json<{ verification: { status: string } }>().verification.status, 'verified');
});
