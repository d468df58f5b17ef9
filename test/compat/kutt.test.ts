// Kutt's own client (the `kutt` npm package, unchanged) against the service's Kutt API v2
// (src/compat/kutt-routes.ts), over a real socket: health, the user, create, list and its pages,
// update, stats after a real click, delete; and what a viewer, a wrong key and bad input get, in
// Kutt's error shape.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Kutt from 'kutt';
import type { startApp } from '../helpers/app.ts';
import { DESKTOP_UA } from '../helpers/agents.ts';
import { createThroughOurApi, servedApp } from '../helpers/compat.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('compat_kutt');
});
after(() => database.drop());

/** The service listening on a port of its own, and a Kutt client for `secret` pointed at its /api/v2. */
async function serve(t: Parameters<typeof startApp>[0], env: Record<string, string> = {}) {
  const { app, base } = await servedApp(t, database.url, env);
  const client = (secret: string) => new Kutt().set('api', `${base}/api/v2`).set('key', secret);
  return { app, base, client };
}

/** What the client threw: Kutt's `error` as the message, the status and body as its cause. */
async function refusal(promise: Promise<unknown>): Promise<{ message: string; status: number; code: unknown }> {
  try {
    await promise;
  } catch (err) {
    const { data, status } = (err as Error & { cause: { data: { code?: unknown }; status: number } }).cause;
    return { message: (err as Error).message, status, code: data.code };
  }
  return assert.fail('the call succeeded');
}

test("Kutt's client creates, lists, updates, reads the stats of and deletes links, with one of our keys", async (t) => {
  const { app, base, client } = await serve(t);
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const kutt = client(admin.secret);

  assert.equal(await kutt.health().check(), true);
  const me = await kutt.users().info();
  assert.equal(me.email, 'admin');
  assert.deepEqual(me.domains, []);

  const links = kutt.links();
  const made = await links.create({
    target: 'https://example.com/spring',
    customurl: 'kutt-spring',
    description: 'Spring',
    expire_in: '2 days',
  });
  assert.equal(made.id, 'kutt-spring');
  assert.equal(made.address, 'kutt-spring');
  assert.equal(made.link, `${base}/kutt-spring`);
  assert.equal(made.target, 'https://example.com/spring');
  assert.equal(made.description, 'Spring');
  assert.equal(made.password, false);
  assert.equal(made.visit_count, 0);
  const expireIn = (made as unknown as { expire_in: string }).expire_in;
  assert.ok(Math.abs(Date.parse(expireIn) - (Date.now() + 2 * 86_400_000)) < 60_000, `expire_in ${expireIn}`);
  // No scheme: http://, as Kutt takes it.
  const bare = await links.create({ target: 'example.org/bare' });
  assert.equal(bare.target, 'http://example.org/bare');

  // Pages newest first, as Kutt's: skip and limit over the workspace's links, with the total.
  for (let i = 0; i < 10; i++) await links.create({ target: `https://example.com/page/${i}` });
  const first = await links.list({ skip: 0, limit: 5 });
  assert.equal(first.total, 12);
  assert.deepEqual(
    first.data.map((link) => link.target),
    [9, 8, 7, 6, 5].map((i) => `https://example.com/page/${i}`),
  );
  assert.ok(first.data[0]?.created_at instanceof Date, 'created_at revived as a Date by the client');
  const third = await links.list({ skip: 10, limit: 5 });
  assert.deepEqual(
    third.data.map((link) => link.id),
    [bare.id, 'kutt-spring'],
  );

  const changed = await links.update('kutt-spring', {
    target: 'https://example.com/summer',
    address: 'kutt-spring',
    description: 'Summer',
  });
  assert.equal(changed.target, 'https://example.com/summer');
  assert.equal(changed.description, 'Summer');
  const followed = await fetch(`${base}/kutt-spring`, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } });
  assert.equal(followed.status, 302);
  assert.equal(followed.headers.get('location'), 'https://example.com/summer');

  // The click, once written, in the stats (the client's stats() sends DELETE: it reads, and deletes nothing).
  await app.clicks.flush();
  const stats = (await links.stats('kutt-spring')) as unknown as Record<
    string,
    { total: number; views: number[]; stats: Record<string, unknown> }
  >;
  assert.equal(stats.lastWeek?.total, 1);
  assert.equal(stats.lastWeek?.views.length, 7);
  assert.equal(stats.lastWeek?.views.at(-1), 1);
  assert.equal(stats.lastMonth?.views.length, 30);
  assert.equal(stats.lastYear?.views.length, 12);
  assert.deepEqual(stats.lastWeek?.stats.browser, [{ name: 'chrome', value: 1 }]);
  assert.equal((stats as unknown as { visit_count: number }).visit_count, 1);
  assert.equal((await fetch(`${base}/kutt-spring`, { redirect: 'manual' })).status, 302, 'stats() deleted nothing');

  assert.equal(await links.remove('kutt-spring'), 'Link has been deleted successfully.');
  assert.equal((await fetch(`${base}/kutt-spring`, { redirect: 'manual' })).status, 404);
  const gone = await refusal(links.stats('kutt-spring'));
  assert.deepEqual([gone.status, gone.code], [404, 'LINK_NOT_FOUND']);
  assert.equal((await links.list({ skip: 0, limit: 50 })).total, 11);
});

test('Kutt clients get our rules and limits, in Kutt’s error shape: bad input, a wrong key, a viewer, what the adapter refuses', async (t) => {
  const { base, client } = await serve(t);
  const { admin, viewer } = await keysWith(database.url, { admin: 'admin', viewer: 'viewer' });
  const nowhere = await fetch(`${base}/api/v2/nowhere`);
  assert.equal(nowhere.status, 404);
  assert.deepEqual(await nowhere.json(), { error: 'No such route.', code: 'ROUTE_NOT_FOUND' });
  const links = client(admin.secret).links();

  const missing = await refusal(links.create({ target: '' }));
  assert.deepEqual(missing, { message: 'Target is missing.', status: 400, code: 'BODY_INVALID' });
  // Our target policy: no private addresses, whatever the adapter.
  const privateTarget = await refusal(links.create({ target: 'http://10.0.0.1/admin' }));
  assert.deepEqual([privateTarget.status, privateTarget.code], [400, 'URL_PRIVATE_ADDRESS']);
  const badExpiry = await refusal(links.create({ target: 'https://example.com/', expire_in: 'soon' }));
  assert.deepEqual(badExpiry, { message: 'Expire format is invalid. Valid examples: 1m, 8h, 42 days.', status: 400, code: 'BODY_INVALID' });
  const tooSoon = await refusal(links.create({ target: 'https://example.com/', expire_in: '30s' }));
  assert.equal(tooSoon.message, 'Expire time should be more than 1 minute.');
  const reuse = await refusal(links.create({ target: 'https://example.com/', reuse: true }));
  assert.deepEqual([reuse.status, reuse.code], [400, 'BODY_INVALID']);
  await links.create({ target: 'https://example.com/taken', customurl: 'kutt-taken' });
  const taken = await refusal(links.create({ target: 'https://example.com/other', customurl: 'kutt-taken' }));
  assert.deepEqual([taken.status, taken.code], [409, 'ALIAS_TAKEN']);
  const renamed = await refusal(links.update('kutt-taken', { target: 'https://example.com/x', address: 'kutt-renamed' }));
  assert.deepEqual([renamed.status, renamed.code], [400, 'BODY_INVALID']);
  const unknown = await refusal(links.remove('kutt-no-such-link'));
  assert.deepEqual([unknown.status, unknown.code], [404, 'LINK_NOT_FOUND']);
  const page = await refusal(links.list({ skip: -1, limit: 10 }));
  assert.deepEqual([page.status, page.code], [400, 'LIST_QUERY_INVALID']);

  const wrongKey = await refusal(client('sk_live_not_a_key').links().list());
  assert.equal(wrongKey.status, 401);
  const noKey = await refusal(client('').links().list());
  assert.equal(noKey.status, 401);
  assert.equal(await client('').health().check(), true, 'health needs no key');

  const asViewer = client(viewer.secret).links();
  assert.ok((await asViewer.list()).total >= 1, 'a viewer reads');
  const viewerCreate = await refusal(asViewer.create({ target: 'https://example.com/viewer' }));
  assert.deepEqual([viewerCreate.status, viewerCreate.code], [403, 'ROLE_FORBIDDEN']);
  const viewerDelete = await refusal(asViewer.remove('kutt-taken'));
  assert.deepEqual([viewerDelete.status, viewerDelete.code], [403, 'ROLE_FORBIDDEN']);

  // Another workspace's key neither sees nor touches the link.
  const other = await workspaceWith(database.url, 'kutt-other', { admin: 'admin' });
  const elsewhere = client(other.keys.admin.secret).links();
  assert.equal((await elsewhere.list()).total, 0);
  const foreign = await refusal(elsewhere.remove('kutt-taken'));
  assert.deepEqual([foreign.status, foreign.code], [404, 'LINK_NOT_FOUND']);
  assert.equal((await links.list({ skip: 0, limit: 50 })).data.filter((link) => link.id === 'kutt-taken').length, 1);
});

test("Kutt's creates and POST /links share one create limit per key", async (t) => {
  const { base, client } = await serve(t, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_CREATES_PER_KEY: '3' });
  const { member } = await keysWith(database.url, { member: 'member' });
  const ours = (i: number) => createThroughOurApi(base, member.secret, `https://example.com/limit/${i}`);
  assert.equal((await ours(1)).status, 201);
  assert.equal((await ours(2)).status, 201);
  const links = client(member.secret).links();
  await links.create({ target: 'https://example.com/limit/3' });
  const limited = await refusal(links.create({ target: 'https://example.com/limit/4' }));
  assert.deepEqual([limited.status, limited.code], [429, 'RATE_LIMITED']);
  assert.equal((await ours(5)).status, 429);
});
