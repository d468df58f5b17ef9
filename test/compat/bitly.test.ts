// Bitly's most used client (the `bitly` npm package, unchanged) against the service's Bitly API v4
// (src/compat/bitly-routes.ts). The client speaks only https to `https://<apiUrl>/v4/...` (no
// port: a host:port in apiUrl comes out as an IPv6 literal), so the service sits behind a real TLS
// terminator on port 443 of a loopback address of the test's own (test/helpers/tls-terminator.ts),
// with a certificate of a test authority that the test trusts, verification on. Create, read,
// list, edit, delete, clicks after a real click; what a viewer, a wrong key, another workspace
// and bad input get, in Bitly's error shape; and both forms of its Authorization header.

import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, test } from 'node:test';
import { BitlyClient } from 'bitly';
import type { startApp } from '../helpers/app.ts';
import { DESKTOP_UA } from '../helpers/agents.ts';
import { servedApp } from '../helpers/compat.ts';
import { freePort } from '../helpers/redis.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { loopbackHost, startTlsTerminator } from '../helpers/tls-terminator.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('compat_bitly');
});
after(() => database.drop());

/** A bitlink as Bitly's API answers it (the package's own type is not exported). */
interface BitlyLink {
  id: string;
  link: string;
  long_url: string;
  title: string | null;
  tags: string[];
  archived: boolean;
  created_at: string;
  references: Record<string, string>;
}

/** What a call of the client answered, as `T` (the package types every answer as a union of a few). */
async function got<T = BitlyLink>(call: Promise<unknown>): Promise<T> {
  return (await call) as T;
}

interface BitlyError {
  message: string;
  resource: string;
  code: string;
  errors?: { field: string; error_code: string }[];
}

/** The service behind HAProxy on https://<host> (BASE_URL too), and a Bitly client for `secret` pointed at it. */
async function serve(t: Parameters<typeof startApp>[0], env: Record<string, string> = {}) {
  const host = loopbackHost();
  const port = await freePort();
  const terminator = await startTlsTerminator(host, port);
  t.after(() => terminator.close());
  // The environment, not the client: Node's default agent (which axios uses) trusts the test authority, and only it.
  https.globalAgent.options.ca = terminator.ca;
  const base = `https://${host}`;
  const { app } = await servedApp(t, database.url, { BASE_URL: base, ...env }, port);
  const client = (secret: string, apiUrl = host) => new BitlyClient(secret, { apiUrl, domain: host });
  return { app, host, base, terminator, client };
}

/** What the client threw: Bitly's error body (it throws the response's data, not its status). */
async function refusal(promise: Promise<unknown>): Promise<BitlyError> {
  try {
    await promise;
  } catch (err) {
    const body = err as BitlyError;
    assert.equal(typeof body.message, 'string', `a Bitly error body, not ${String(err)}`);
    return body;
  }
  return assert.fail('the call succeeded');
}

/** A request through the terminator, as any https client makes it (for statuses the client throws away). */
function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }>((resolve, reject) => {
    const req = https.request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? {} : JSON.parse(text) }));
    });
    req.on('error', reject);
    if (init.body !== undefined) req.setHeader('content-type', 'application/json').end(JSON.stringify(init.body));
    else req.end();
  });
}

/** A redirect followed by a person, through the terminator. */
function click(url: string) {
  return new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
    https
      .get(url, { headers: { 'user-agent': DESKTOP_UA } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      })
      .on('error', reject);
  });
}

test("Bitly's client creates, reads, lists, edits, expands, reads the clicks of and deletes bitlinks, over verified TLS", async (t) => {
  const { app, host, base, terminator, client } = await serve(t);
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const bitly = client(admin.secret);

  const user = await got<{ login: string; default_group_guid: string }>(bitly.bitlyRequest('user', {}, 'GET'));
  assert.equal(user.login, 'admin');
  const group = user.default_group_guid;
  assert.match(group, /^B[0-9A-Za-z]{10}$/);
  const groups = await got<{ groups: { guid: string; name: string; role: string }[] }>(bitly.bitlyRequest('groups', {}, 'GET'));
  assert.deepEqual(
    groups.groups.map((one) => [one.guid, one.role]),
    [[group, 'group-admin']],
  );

  const made = await got(bitly.shorten('https://example.com/spring'));
  const code = made.id.slice(made.id.indexOf('/') + 1);
  assert.equal(made.id, `${host}/${code}`);
  assert.equal(made.link, `${base}/${code}`);
  assert.equal(made.long_url, 'https://example.com/spring');
  assert.equal(made.archived, false);
  assert.match(made.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
  assert.equal(made.references.group, `${base}/v4/groups/${group}`);

  const full = await got(
    bitly.bitlyRequest('bitlinks', {
      long_url: 'https://example.com/summer',
      title: 'Summer',
      tags: ['season'],
      group_guid: group,
    }),
  );
  assert.equal(full.title, 'Summer');
  assert.deepEqual(full.tags, ['season']);

  // The client rewrites the id to bit.ly/<code> (a back-half of 6+ characters): bit.ly is the workspace's default domain here.
  const read = await got(bitly.info(made.id));
  assert.equal(read.id, made.id);
  assert.equal(read.long_url, 'https://example.com/spring');
  const expanded = await got<{ id: string; long_url: string; link: string }>(bitly.expand(made.link));
  assert.deepEqual([expanded.id, expanded.long_url, expanded.link], [made.id, made.long_url, made.link]);
  // Its own host names it too.
  const byHost = await request(`${base}/v4/bitlinks/${made.id}`, { headers: { authorization: `Bearer ${admin.secret}` } });
  assert.deepEqual([byHost.status, byHost.body.long_url], [200, 'https://example.com/spring']);

  const listed = await got<{
    links: BitlyLink[];
    pagination: { total: number; page: number; next: string; prev: string };
  }>(bitly.bitlyRequest(`groups/${group}/bitlinks`, { size: 1, page: 2 }, 'GET'));
  assert.deepEqual(
    listed.links.map((link) => link.id),
    [made.id],
    'newest first: the second of a page of one',
  );
  assert.equal(listed.pagination.total, 2);
  assert.equal(listed.pagination.prev, `${base}/v4/groups/${group}/bitlinks?size=1&page=1`);
  assert.equal(listed.pagination.next, '');

  const edited = await got(
    bitly.bitlyRequest(
      `bitlinks/${made.id}`,
      { title: 'Spring', tags: ['a', 'b'], long_url: 'https://example.com/autumn', archived: false },
      'PATCH',
    ),
  );
  assert.deepEqual([edited.title, edited.tags, edited.long_url], ['Spring', ['a', 'b'], 'https://example.com/autumn']);
  const followed = await click(made.link);
  assert.deepEqual(followed, { status: 302, location: 'https://example.com/autumn' });

  // The click, once written, in the metrics.
  await app.clicks.flush();
  const clicks = await got<{ link_clicks: { date: string; clicks: number }[]; unit: string; units: number }>(bitly.clicks(made.id));
  assert.equal(clicks.unit, 'day');
  assert.equal(clicks.units, -1);
  const today = new Date().toISOString().slice(0, 10);
  assert.deepEqual(clicks.link_clicks, [{ date: `${today}T00:00:00+0000`, clicks: 1 }]);
  const weekly = await got<{
    link_clicks: { clicks: number }[];
  }>(bitly.bitlyRequest(`bitlinks/${made.id}/clicks`, { unit: 'week', units: 2 }, 'GET'));
  assert.deepEqual(
    weekly.link_clicks.map((bucket) => bucket.clicks),
    [1, 0],
  );
  const summary = await got<{ total_clicks: number }>(bitly.bitlyRequest(`bitlinks/${made.id}/clicks/summary`, {}, 'GET'));
  assert.equal(summary.total_clicks, 1);
  const countries = await got<{ facet: string; metrics: unknown[] }>(bitly.countries(made.id));
  assert.equal(countries.facet, 'countries');
  const referrers = await got<{ metrics: { value: string; clicks: number }[] }>(bitly.referrers(made.id));
  assert.deepEqual(referrers.metrics, [{ value: 'direct', clicks: 1 }]);
  const domains = await got<{ metrics: unknown[] }>(bitly.bitlyRequest(`bitlinks/${made.id}/referring_domains`, {}, 'GET'));
  assert.deepEqual(domains.metrics, [{ value: 'direct', clicks: 1 }]);

  const deleted = await got<{ links_deleted: { id: string }[] }>(bitly.bitlyRequest(`bitlinks/${made.id}`, {}, 'DELETE' as 'GET'));
  assert.deepEqual(
    deleted.links_deleted.map((link) => link.id),
    [made.id],
  );
  assert.equal((await click(made.link)).status, 404);
  const gone = await refusal(bitly.info(made.id));
  assert.deepEqual([gone.message, gone.code, gone.resource], ['NOT_FOUND', 'LINK_NOT_FOUND', 'bitlinks']);

  // Real TLS: a certificate of another authority, on the same terminator, is refused by the same client.
  await assert.rejects(client(admin.secret, terminator.rogueHost).shorten('https://example.com/rogue'), (err: { code?: string }) => {
    assert.equal(err.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    return true;
  });
});

test('Bitly clients get our rules and roles, in Bitly’s error shape with its statuses; the key bare or as a Bearer token', async (t) => {
  const { base, client } = await serve(t);
  const { admin, viewer } = await keysWith(database.url, { admin: 'admin', viewer: 'viewer' });
  const bitly = client(admin.secret);

  const missing = await refusal(bitly.bitlyRequest('bitlinks', { title: 'no url' }));
  assert.equal(missing.message, 'INVALID_ARG_LONG_URL');
  assert.deepEqual(missing.errors?.[0], { field: 'long_url', error_code: 'invalid', message: 'long_url is missing.' });
  const bad = await request(`${base}/v4/shorten`, {
    method: 'POST',
    headers: { authorization: admin.secret },
    body: { long_url: 'http://10.0.0.1/admin' },
  });
  assert.equal(bad.status, 400);
  assert.deepEqual([bad.body.message, bad.body.code, bad.body.resource], ['INVALID_ARG_LONG_URL', 'URL_PRIVATE_ADDRESS', 'bitlinks']);
  const notUrl = await refusal(bitly.shorten('not a url'));
  assert.equal(notUrl.message, 'INVALID_ARG_LONG_URL');

  const link = await got(bitly.shorten('https://example.com/rules'));
  const archive = await refusal(bitly.bitlyRequest(`bitlinks/${link.id}`, { archived: true }, 'PATCH'));
  assert.deepEqual([archive.message, archive.code], ['INVALID_ARG_ARCHIVED', 'BODY_INVALID']);
  const unit = await refusal(bitly.clicksByMinute(link.id));
  assert.deepEqual([unit.message, unit.code], ['INVALID_ARG_UNIT', 'STATS_QUERY_INVALID']);
  const unknown = await request(`${base}/v4/bitlinks/bit.ly/NoSuchLink`, { headers: { authorization: admin.secret } });
  assert.deepEqual([unknown.status, unknown.body.message, unknown.body.code], [404, 'NOT_FOUND', 'LINK_NOT_FOUND']);

  // Bitly answers a wrong or missing token 403 FORBIDDEN; the key goes bare (as the client sends it) or as a Bearer token.
  const wrong = await request(`${base}/v4/user`, { headers: { authorization: 'sk_live_not_a_key' } });
  assert.deepEqual([wrong.status, wrong.body.message, wrong.body.code, wrong.body.resource], [403, 'FORBIDDEN', 'API_KEY_INVALID', 'user']);
  const none = await request(`${base}/v4/user`);
  assert.deepEqual([none.status, none.body.code], [403, 'API_KEY_REQUIRED']);
  await refusal(client('sk_live_not_a_key').shorten('https://example.com/x'));
  const bearer = await request(`${base}/v4/user`, { headers: { authorization: `Bearer ${admin.secret}` } });
  assert.deepEqual([bearer.status, bearer.body.login], [200, 'admin']);
  const bare = await request(`${base}/v4/user`, { headers: { authorization: admin.secret } });
  assert.deepEqual([bare.status, bare.body.login], [200, 'admin']);
  // Every other route keeps to "Bearer <key>".
  const ours = await request(`${base}/links`, { headers: { authorization: admin.secret } });
  assert.deepEqual([ours.status, (ours.body.error as { code: string }).code], [401, 'API_KEY_INVALID']);
  assert.equal((await request(`${base}/links`, { headers: { authorization: `Bearer ${admin.secret}` } })).status, 200);

  const asViewer = client(viewer.secret);
  assert.equal((await got(asViewer.info(link.id))).id, link.id, 'a viewer reads');
  const viewerCreate = await refusal(asViewer.shorten('https://example.com/viewer'));
  assert.deepEqual([viewerCreate.message, viewerCreate.code], ['FORBIDDEN', 'ROLE_FORBIDDEN']);
  const viewerEdit = await refusal(asViewer.bitlyRequest(`bitlinks/${link.id}`, { title: 'mine' }, 'PATCH'));
  assert.equal(viewerEdit.code, 'ROLE_FORBIDDEN');

  // Another workspace's key neither sees nor touches the link, nor the group.
  const group = (await got<{ default_group_guid: string }>(bitly.bitlyRequest('user', {}, 'GET'))).default_group_guid;
  const other = await workspaceWith(database.url, 'bitly-other', { admin: 'admin' });
  const elsewhere = client(other.keys.admin.secret);
  const foreign = await refusal(elsewhere.info(link.id));
  assert.equal(foreign.code, 'LINK_NOT_FOUND');
  const foreignExpand = await refusal(elsewhere.expand(link.id));
  assert.equal(foreignExpand.code, 'LINK_NOT_FOUND');
  const foreignGroup = await refusal(elsewhere.bitlyRequest(`groups/${group}/bitlinks`, {}, 'GET'));
  assert.deepEqual([foreignGroup.code, foreignGroup.resource], ['WORKSPACE_NOT_FOUND', 'groups']);
  const intoForeign = await refusal(elsewhere.bitlyRequest('bitlinks', { long_url: 'https://example.com/x', group_guid: group }));
  assert.equal(intoForeign.code, 'WORKSPACE_NOT_FOUND');
  const own = await got<{ groups: { guid: string }[] }>(elsewhere.bitlyRequest('groups', {}, 'GET'));
  const ownList = await got<{ links: unknown[] }>(elsewhere.bitlyRequest(`groups/${own.groups[0]?.guid}/bitlinks`, {}, 'GET'));
  assert.deepEqual(ownList.links, []);
  assert.equal((await got(bitly.info(link.id))).title, null, 'untouched');
});

test("Bitly's creates and POST /links share one create limit per key", async (t) => {
  const { base, client } = await serve(t, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_CREATES_PER_KEY: '3' });
  const { member } = await keysWith(database.url, { member: 'member' });
  const ours = (i: number) =>
    request(`${base}/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.secret}` },
      body: { url: `https://example.com/limit/${i}` },
    });
  assert.equal((await ours(1)).status, 201);
  assert.equal((await ours(2)).status, 201);
  const bitly = client(member.secret);
  await bitly.shorten('https://example.com/limit/3');
  const limited = await refusal(bitly.shorten('https://example.com/limit/4'));
  assert.equal(limited.message, 'RATE_LIMIT_EXCEEDED');
  assert.equal((await ours(5)).status, 429);
});
