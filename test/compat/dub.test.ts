// Dub's own SDK (the `dub` npm package, unchanged) against the service's Dub API
// (src/compat/dub-routes.ts), over a real socket, on a host name of its own (DUB_API_HOSTS):
// create, get, list, count, update, upsert, the bulk routes, delete, analytics after a real click,
// tags and domains; Dub's typed errors for bad input, an unknown link, a wrong key, a viewer and
// another workspace; and this service's own /links, unchanged on its own host.
//
// The Dub host is `localhost` and ours `127.0.0.1`: two names of this machine that resolve without
// help (`dub.localhost` does not resolve here: glibc's getaddrinfo has no rule for *.localhost).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Dub } from 'dub';
import * as errors from 'dub/models/errors';
import type { startApp } from '../helpers/app.ts';
import { DESKTOP_UA } from '../helpers/agents.ts';
import { createThroughOurApi, servedApp } from '../helpers/compat.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('compat_dub');
});
after(() => database.drop());

/** The service on a port of its own, Dub's API on `localhost`; a Dub SDK for `token` pointed at it. */
async function serve(t: Parameters<typeof startApp>[0], env: Record<string, string> = {}) {
  const { app, port, base } = await servedApp(t, database.url, { DUB_API_HOSTS: 'localhost', ...env });
  const client = (token: string) => new Dub({ token, serverURL: `http://localhost:${port}` });
  return { app, base, dubBase: `http://localhost:${port}`, client };
}

/** What the SDK threw, which must be an instance of `kind`: its HTTP status and Dub's error code. */
async function refusal(promise: Promise<unknown>, kind: new (...args: never[]) => errors.DubError) {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof kind, `expected ${kind.name}, got ${String(err)}`);
    const body = JSON.parse(err.body) as { error: { code: string; message: string }; code: string };
    return { status: err.statusCode, dubCode: body.error.code, code: body.code, message: body.error.message };
  }
  return assert.fail('the call succeeded');
}

test("Dub's SDK creates, reads, lists, changes, upserts, bulk-edits and deletes links, and reads their clicks", async (t) => {
  const { app, base, dubBase, client } = await serve(t);
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const dub = client(admin.secret);

  const made = await dub.links.create({ url: 'https://example.com/spring', key: 'dub-spring', tagNames: ['launch'], comments: 'Spring' });
  assert.equal(made.id, 'link_dub-spring');
  assert.equal(made.key, 'dub-spring');
  assert.equal(made.domain, '127.0.0.1');
  assert.equal(made.shortLink, `${base}/dub-spring`);
  assert.equal(made.url, 'https://example.com/spring');
  assert.equal(made.comments, 'Spring');
  assert.deepEqual(
    made.tags?.map((tag) => tag.name),
    ['launch'],
  );
  // No scheme: https://, as Dub takes it.
  const bare = await dub.links.create({ url: 'example.org/bare' });
  assert.equal(bare.url, 'https://example.org/bare');

  assert.equal((await dub.links.get({ linkId: made.id })).url, 'https://example.com/spring');
  assert.equal((await dub.links.get({ domain: '127.0.0.1', key: 'dub-spring' })).id, made.id);

  for (let i = 0; i < 4; i++) await dub.links.create({ url: `https://example.com/page/${i}` });
  const first = await dub.links.list({ page: 1, pageSize: 3 });
  assert.deepEqual(
    first.result.map((link) => link.url),
    [3, 2, 1].map((i) => `https://example.com/page/${i}`),
  );
  const second = await dub.links.list({ page: 2, pageSize: 3 });
  assert.deepEqual(
    second.result.map((link) => link.url),
    ['https://example.com/page/0', bare.url, made.url],
  );
  assert.deepEqual(
    (await dub.links.list({ tagNames: 'launch' })).result.map((link) => link.id),
    [made.id],
  );
  assert.deepEqual(
    (await dub.links.list({ search: 'page/2' })).result.map((link) => link.url),
    ['https://example.com/page/2'],
  );
  assert.equal(await dub.links.count({}), 6);

  const changed = await dub.links.update(made.id, { url: 'https://example.com/summer', tagNames: ['launch', 'summer'] });
  assert.equal(changed.url, 'https://example.com/summer');
  assert.deepEqual(
    changed.tags?.map((tag) => tag.name),
    ['launch', 'summer'],
  );
  const followed = await fetch(`${base}/dub-spring`, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } });
  assert.equal(followed.status, 302);
  assert.equal(followed.headers.get('location'), 'https://example.com/summer');

  // Upsert: the link with this URL, changed; a URL no link has, a new link.
  const upserted = await dub.links.upsert({ url: 'https://example.com/summer', comments: 'Summer' });
  assert.equal(upserted.id, made.id);
  assert.equal(upserted.comments, 'Summer');
  const fresh = await dub.links.upsert({ url: 'https://example.com/autumn', key: 'dub-autumn' });
  assert.equal(fresh.id, 'link_dub-autumn');
  assert.equal(await dub.links.count({}), 7);

  const bulk = await dub.links.createMany([
    { url: 'https://example.com/bulk/1', key: 'dub-bulk-1' },
    { url: 'https://example.com/bulk/2', key: 'dub-spring' },
  ]);
  assert.equal((bulk[0] as { id: string }).id, 'link_dub-bulk-1');
  assert.deepEqual([(bulk[1] as { code: string }).code], ['conflict']);
  const updatedMany = await dub.links.updateMany({ linkIds: ['link_dub-bulk-1', fresh.id, 'link_no-such'], data: { tagNames: ['bulk'] } });
  assert.deepEqual(updatedMany.map((link) => link.id).sort(), ['link_dub-autumn', 'link_dub-bulk-1']);
  assert.deepEqual((await dub.links.list({ tagNames: 'bulk' })).result.map((link) => link.id).sort(), [
    'link_dub-autumn',
    'link_dub-bulk-1',
  ]);
  assert.deepEqual(await dub.links.deleteMany({ linkIds: ['link_dub-bulk-1', fresh.id, 'link_no-such'] }), { deletedCount: 2 });
  assert.equal((await fetch(`${base}/dub-bulk-1`, { redirect: 'manual' })).status, 404);

  // The click, once written, in Dub's analytics.
  await app.clicks.flush();
  assert.deepEqual(await dub.analytics.retrieve({ linkId: made.id, groupBy: 'count' }), { clicks: 1, leads: 0, sales: 0, saleAmount: 0 });
  const series = (await dub.analytics.retrieve({ linkId: made.id, groupBy: 'timeseries', interval: '7d' })) as {
    start: string;
    clicks: number;
  }[];
  assert.equal(series.length, 8, 'the UTC days a 7-day window touches');
  assert.equal(series.at(-1)?.clicks, 1);
  assert.equal(series.at(-1)?.start, `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
  const browsers = (await dub.analytics.retrieve({ linkId: made.id, groupBy: 'browsers' })) as { browser: string; clicks: number }[];
  assert.deepEqual(
    browsers.map(({ browser, clicks }) => ({ browser, clicks })),
    [{ browser: 'Chrome', clicks: 1 }],
  );
  assert.deepEqual(await dub.analytics.retrieve({ groupBy: 'count', interval: '30d' }), { clicks: 1, leads: 0, sales: 0, saleAmount: 0 });
  const top = (await dub.analytics.retrieve({ groupBy: 'top_links', interval: '30d' })) as { id: string; clicks: number }[];
  assert.deepEqual(
    top.map(({ id, clicks }) => ({ id, clicks })),
    [{ id: made.id, clicks: 1 }],
  );
  const hourly = await refusal(dub.analytics.retrieve({ groupBy: 'regions' }), errors.UnprocessableEntity);
  assert.deepEqual([hourly.status, hourly.dubCode, hourly.code], [422, 'unprocessable_entity', 'STATS_QUERY_INVALID']);

  assert.deepEqual((await dub.tags.list()).map((tag) => tag.name).sort(), ['launch', 'summer']);
  const tagCreate = await refusal(dub.tags.create({ name: 'new' }), errors.UnprocessableEntity);
  assert.equal(tagCreate.status, 422);
  assert.deepEqual((await dub.domains.list()).result, []);
  const domainCreate = await refusal(dub.domains.create({ slug: 'go.example.com' }), errors.NotFound);
  assert.match(domainCreate.message, /own API/);

  assert.deepEqual(await dub.links.delete(made.id), { id: made.id });
  assert.equal((await fetch(`${base}/dub-spring`, { redirect: 'manual' })).status, 404);
  const gone = await refusal(dub.links.get({ linkId: made.id }), errors.NotFound);
  assert.deepEqual([gone.status, gone.dubCode, gone.code], [404, 'not_found', 'LINK_NOT_FOUND']);

  // The same paths on this service's own host are this service's, as before.
  const ours = await fetch(`${base}/links`, { headers: { authorization: `Bearer ${admin.secret}` } });
  assert.equal(ours.status, 200);
  const page = (await ours.json()) as { links: { code: string }[] };
  assert.ok(Array.isArray(page.links) && page.links.length >= 4, 'our list shape: { links, nextCursor }');
  assert.equal((await fetch(`${base}/analytics`)).status, 404);
  // And on the Dub host, a GET of Dub's reaches Dub's route, not the redirect.
  const dubList = await fetch(`${dubBase}/links`, { headers: { authorization: `Bearer ${admin.secret}` } });
  assert.ok(Array.isArray(await dubList.json()), "Dub's list is a bare array");
});

test('Dub clients get our rules and roles in Dub’s errors: bad input, an unknown link, a wrong key, a viewer, another workspace', async (t) => {
  const { client } = await serve(t);
  const { admin, viewer } = await keysWith(database.url, { admin: 'admin', viewer: 'viewer' });
  const dub = client(admin.secret);
  await dub.links.create({ url: 'https://example.com/taken', key: 'dub-taken' });

  const badUrl = await refusal(dub.links.create({ url: 'javascript:alert(1)' }), errors.UnprocessableEntity);
  assert.deepEqual([badUrl.status, badUrl.dubCode], [422, 'unprocessable_entity']);
  assert.match(badUrl.code, /^URL_/);
  const privateTarget = await refusal(dub.links.create({ url: 'http://10.0.0.1/admin' }), errors.UnprocessableEntity);
  assert.equal(privateTarget.code, 'URL_PRIVATE_ADDRESS');
  const unserved = await refusal(
    dub.links.create({ url: 'https://example.com/', ios: 'https://apps.apple.com/x' }),
    errors.UnprocessableEntity,
  );
  assert.match(unserved.message, /^ios:/);
  const taken = await refusal(dub.links.create({ url: 'https://example.com/other', key: 'dub-taken' }), errors.Conflict);
  assert.deepEqual([taken.status, taken.code], [409, 'ALIAS_TAKEN']);
  const rekey = await refusal(dub.links.update('link_dub-taken', { key: 'dub-renamed' }), errors.UnprocessableEntity);
  assert.equal(rekey.code, 'BODY_INVALID');
  const unknown = await refusal(dub.links.delete('link_dub-no-such-link'), errors.NotFound);
  assert.deepEqual([unknown.status, unknown.dubCode, unknown.code], [404, 'not_found', 'LINK_NOT_FOUND']);

  const wrongKey = await refusal(client('sk_live_not_a_key').links.list({}), errors.Unauthorized);
  assert.deepEqual([wrongKey.status, wrongKey.dubCode], [401, 'unauthorized']);

  const asViewer = client(viewer.secret);
  assert.equal((await asViewer.links.get({ linkId: 'link_dub-taken' })).url, 'https://example.com/taken', 'a viewer reads');
  const viewerCreate = await refusal(asViewer.links.create({ url: 'https://example.com/viewer' }), errors.Forbidden);
  assert.deepEqual([viewerCreate.status, viewerCreate.dubCode, viewerCreate.code], [403, 'forbidden', 'ROLE_FORBIDDEN']);
  const viewerDelete = await refusal(asViewer.links.delete('link_dub-taken'), errors.Forbidden);
  assert.equal(viewerDelete.code, 'ROLE_FORBIDDEN');

  // Another workspace's key neither sees nor touches the link.
  const other = await workspaceWith(database.url, 'dub-other', { admin: 'admin' });
  const elsewhere = client(other.keys.admin.secret);
  assert.deepEqual((await elsewhere.links.list({})).result, []);
  assert.equal(await elsewhere.links.count({}), 0);
  const foreign = await refusal(elsewhere.links.get({ linkId: 'link_dub-taken' }), errors.NotFound);
  assert.equal(foreign.code, 'LINK_NOT_FOUND');
  await refusal(elsewhere.links.delete('link_dub-taken'), errors.NotFound);
  assert.equal((await dub.links.get({ linkId: 'link_dub-taken' })).url, 'https://example.com/taken');
});

test("Dub's bulk creates count each link against our create limit", async (t) => {
  const { base, client } = await serve(t, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_CREATES_PER_KEY: '3' });
  const { member } = await keysWith(database.url, { member: 'member' });
  const dub = client(member.secret);
  await dub.links.create({ url: 'https://example.com/limit/1' });
  const limited = await refusal(
    dub.links.createMany([
      { url: 'https://example.com/limit/2' },
      { url: 'https://example.com/limit/3' },
      { url: 'https://example.com/limit/4' },
    ]),
    errors.RateLimitExceeded,
  );
  assert.deepEqual([limited.status, limited.code], [429, 'RATE_LIMITED']);
  const ours = await createThroughOurApi(base, member.secret, 'https://example.com/limit/5');
  assert.equal(ours.status, 201, 'two of three left: the refused bulk took none');
});

test("Dub's archived and expiredUrl: an archived link leaves the list (showArchived brings it back) and still redirects; expiredUrl is the link's own fallback", async (t) => {
  const { app, client } = await serve(t);
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const dub = client(admin.secret);
  const made = await dub.links.create({ url: 'https://example.com/sale', key: 'dub-sale', expiredUrl: 'example.com/sale-over' });
  assert.deepEqual([made.archived, made.expiredUrl], [false, 'https://example.com/sale-over']);
  const archiveOnCreate = await refusal(dub.links.create({ url: 'https://example.com/', archived: true }), errors.UnprocessableEntity);
  assert.match(archiveOnCreate.message, /^archived:/);

  const listed = async (showArchived: boolean) =>
    (await dub.links.list({ pageSize: 100, showArchived })).result.map((link) => link.key).filter((key) => key === 'dub-sale');
  assert.deepEqual(await listed(false), ['dub-sale']);
  const archived = await dub.links.update(made.id, { archived: true });
  assert.equal(archived.archived, true);
  assert.equal(archived.expiredUrl, 'https://example.com/sale-over', 'the other options kept');
  assert.deepEqual(await listed(false), []);
  assert.deepEqual(await listed(true), ['dub-sale']);
  const redirect = await app.inject({ url: '/dub-sale' });
  assert.deepEqual([redirect.statusCode, redirect.headers.location], [302, 'https://example.com/sale']);

  const cleared = await dub.links.update(made.id, { archived: false, expiredUrl: null });
  assert.deepEqual([cleared.archived, cleared.expiredUrl], [false, null]);
  const blocked = await refusal(dub.links.update(made.id, { expiredUrl: 'http://10.0.0.1/' }), errors.UnprocessableEntity);
  assert.equal(blocked.code, 'URL_PRIVATE_ADDRESS');
});
