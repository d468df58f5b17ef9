// Shlink's own client (@shlinkio/shlink-js-sdk, unchanged) against the service's Shlink REST API v3
// (src/compat/shlink-routes.ts), over a real socket: health, create, get, list with its pages,
// filters and order, edit, a real click in the visit counts, tags and their stats, domains, delete;
// and what a viewer, a wrong key, another workspace and bad input get, as Shlink's problem details.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ShlinkApiClient } from '@shlinkio/shlink-js-sdk';
import { FetchHttpClient } from '@shlinkio/shlink-js-sdk/fetch';
import { ErrorType } from '@shlinkio/shlink-js-sdk/api-contract';
import type { startApp } from '../helpers/app.ts';
import { DESKTOP_UA } from '../helpers/agents.ts';
import { createThroughOurApi, servedApp } from '../helpers/compat.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('compat_shlink');
});
after(() => database.drop());

async function serve(t: Parameters<typeof startApp>[0], env: Record<string, string> = {}) {
  const { app, base } = await servedApp(t, database.url, env);
  const client = (apiKey: string) => new ShlinkApiClient(new FetchHttpClient(), { baseUrl: base, apiKey });
  return { app, base, client };
}

interface Problem {
  type: string;
  title: string;
  detail: string;
  status: number;
  code: string;
  invalidElements?: string[];
}

/** What the client threw: Shlink's client throws the problem details it was answered. */
async function problem(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (err) {
    return err as Problem;
  }
  return assert.fail('the call succeeded');
}

test("Shlink's client creates, gets, lists, edits, counts the visits of and deletes short URLs, with one of our keys", async (t) => {
  const { app, base, client } = await serve(t);
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const shlink = client(admin.secret);

  const health = await shlink.health();
  assert.equal(health.status, 'pass');
  assert.equal(health.version, '4.0.0');

  const validUntil = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const made = await shlink.createShortUrl({
    longUrl: 'https://example.com/spring',
    customSlug: 'shlink-spring',
    title: 'Spring',
    tags: ['campaign', 'spring'],
    validUntil,
    maxVisits: 100,
    forwardQuery: true,
  });
  assert.deepEqual(
    { ...made, dateCreated: typeof made.dateCreated },
    {
      shortCode: 'shlink-spring',
      shortUrl: `${base}/shlink-spring`,
      longUrl: 'https://example.com/spring',
      dateCreated: 'string',
      visitsSummary: { total: 0, nonBots: 0, bots: 0 },
      tags: ['campaign', 'spring'],
      meta: { validSince: null, validUntil, maxVisits: 100 },
      domain: null,
      title: 'Spring',
      crawlable: false,
      forwardQuery: true,
      hasRedirectRules: false,
    },
  );
  const generated = await shlink.createShortUrl({ longUrl: 'https://example.com/generated', tags: ['campaign'] });
  assert.match(generated.shortCode, /^[A-Za-z0-9_-]{5,}$/);
  assert.equal(generated.forwardQuery, false, "FORWARD_QUERY's default for a link that does not choose");

  const got = await shlink.getShortUrl({ shortCode: 'shlink-spring' });
  assert.equal(got.longUrl, 'https://example.com/spring');
  assert.deepEqual(got.meta, made.meta);

  // Pages newest first, with Shlink's pagination; filters by search, tag and domain; ordered by visits.
  for (let i = 0; i < 5; i++) await shlink.createShortUrl({ longUrl: `https://example.com/page/${i}` });
  const second = await shlink.listShortUrls({ page: '2', itemsPerPage: 3 });
  assert.deepEqual(second.pagination, { currentPage: 2, pagesCount: 3, itemsPerPage: 3, itemsInCurrentPage: 3, totalItems: 7 });
  assert.deepEqual(
    second.data.map((shortUrl) => shortUrl.longUrl),
    ['https://example.com/page/1', 'https://example.com/page/0', 'https://example.com/generated'],
  );
  const tagged = await shlink.listShortUrls({ tags: ['campaign'] });
  assert.deepEqual(tagged.data.map((shortUrl) => shortUrl.longUrl).sort(), ['https://example.com/generated', 'https://example.com/spring']);
  const searched = await shlink.listShortUrls({ searchTerm: 'spring' });
  assert.deepEqual(
    searched.data.map((shortUrl) => shortUrl.shortCode),
    ['shlink-spring'],
  );
  assert.equal((await shlink.listShortUrls({ domain: 'DEFAULT', itemsPerPage: 100 })).pagination.totalItems, 7);

  // An edit: a field given changes, null clears; maxVisits keeps the link's other options.
  const edited = await shlink.updateShortUrl(
    { shortCode: 'shlink-spring' },
    { longUrl: 'https://example.com/summer', title: null, maxVisits: null },
  );
  assert.equal(edited.longUrl, 'https://example.com/summer');
  assert.equal(edited.title, null);
  assert.equal(edited.meta.maxVisits, null);
  assert.equal(edited.forwardQuery, true, 'forwardQuery kept');
  assert.deepEqual(edited.tags, ['campaign', 'spring']);

  // A real click, through the redirect, in the visit counts once flushed.
  const followed = await fetch(`${base}/shlink-spring?utm_source=sms`, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } });
  assert.equal(followed.status, 302);
  assert.equal(followed.headers.get('location'), 'https://example.com/summer?utm_source=sms');
  await app.clicks.flush();
  assert.deepEqual((await shlink.getShortUrl({ shortCode: 'shlink-spring' })).visitsSummary, { total: 1, nonBots: 1, bots: 0 });
  const byVisits = await shlink.listShortUrls({ orderBy: { field: 'visits', dir: 'DESC' }, itemsPerPage: 1 });
  assert.deepEqual(
    byVisits.data.map((shortUrl) => shortUrl.shortCode),
    ['shlink-spring'],
  );
  const overview = await shlink.getVisitsOverview();
  assert.deepEqual(overview.nonOrphanVisits, { total: 1, nonBots: 1, bots: 0 });

  assert.deepEqual((await shlink.listTags()).data.sort(), ['campaign', 'spring']);
  const tagStats = await shlink.tagsStats();
  assert.deepEqual(
    tagStats.data.map((stats) => [stats.tag, stats.shortUrlsCount, stats.visitsSummary.nonBots]),
    [
      ['campaign', 2, 1],
      ['spring', 1, 1],
    ],
  );
  const domains = await shlink.listDomains();
  assert.deepEqual(
    domains.data.map((domain) => [domain.domain, domain.isDefault]),
    [['127.0.0.1', true]],
  );

  await shlink.deleteShortUrl({ shortCode: 'shlink-spring' });
  assert.equal((await fetch(`${base}/shlink-spring`, { redirect: 'manual' })).status, 404);
  const gone = await problem(shlink.getShortUrl({ shortCode: 'shlink-spring' }));
  assert.deepEqual([gone.type, gone.status, gone.code], [ErrorType.INVALID_SHORTCODE, 404, 'LINK_NOT_FOUND']);
  assert.equal((await shlink.listShortUrls()).pagination.totalItems, 6);
});

test('Shlink clients get our rules and limits as Shlink’s problem details: bad input, a wrong key, a viewer, another workspace, what is refused', async (t) => {
  const { base, client } = await serve(t);
  const { admin, viewer } = await keysWith(database.url, { admin: 'admin', viewer: 'viewer' });
  const shlink = client(admin.secret);

  const missing = await problem(shlink.createShortUrl({ longUrl: '' }));
  assert.deepEqual(
    { ...missing, detail: typeof missing.detail },
    {
      type: ErrorType.INVALID_ARGUMENT,
      title: 'Invalid data',
      detail: 'string',
      status: 400,
      invalidElements: ['longUrl'],
      code: 'BODY_INVALID',
    },
  );
  // Our target policy, whatever the adapter.
  const privateTarget = await problem(shlink.createShortUrl({ longUrl: 'http://10.0.0.1/admin' }));
  assert.deepEqual(
    [privateTarget.type, privateTarget.invalidElements, privateTarget.code],
    [ErrorType.INVALID_ARGUMENT, ['longUrl'], 'URL_PRIVATE_ADDRESS'],
  );
  const badSlug = await problem(shlink.createShortUrl({ longUrl: 'https://example.com/', customSlug: 'a b' }));
  assert.deepEqual([badSlug.status, badSlug.invalidElements, badSlug.code], [400, ['customSlug'], 'ALIAS_INVALID']);
  const badDate = await problem(shlink.createShortUrl({ longUrl: 'https://example.com/', validUntil: 'tomorrow' }));
  assert.deepEqual([badDate.status, badDate.invalidElements], [400, ['validUntil']]);
  await shlink.createShortUrl({ longUrl: 'https://example.com/taken', customSlug: 'shlink-taken' });
  // Shlink answers a slug in use 400 non-unique-slug, where our API answers 409.
  const taken = await problem(shlink.createShortUrl({ longUrl: 'https://example.com/other', customSlug: 'shlink-taken' }));
  assert.deepEqual([taken.type, taken.status, taken.code], [ErrorType.INVALID_SLUG, 400, 'ALIAS_TAKEN']);
  const crawlable = await problem(shlink.createShortUrl({ longUrl: 'https://example.com/', crawlable: true }));
  assert.deepEqual([crawlable.status, crawlable.invalidElements], [400, ['crawlable']]);
  const findIfExists = await problem(shlink.createShortUrl({ longUrl: 'https://example.com/taken', findIfExists: true }));
  assert.deepEqual([findIfExists.status, findIfExists.invalidElements], [400, ['findIfExists']]);
  const badMax = await problem(shlink.updateShortUrl({ shortCode: 'shlink-taken' }, { maxVisits: 1.5 }));
  assert.deepEqual([badMax.status, badMax.invalidElements], [400, ['maxVisits']]);
  const order = await problem(shlink.listShortUrls({ orderBy: { field: 'longUrl', dir: 'ASC' } }));
  assert.deepEqual([order.status, order.invalidElements, order.code], [400, ['orderBy'], 'BODY_INVALID']);
  const page = await problem(shlink.listShortUrls({ page: '0' }));
  assert.deepEqual([page.status, page.invalidElements, page.code], [400, ['page'], 'LIST_QUERY_INVALID']);
  const unknownDomain = await problem(shlink.listShortUrls({ domain: 'elsewhere.example' }));
  assert.deepEqual([unknownDomain.status, unknownDomain.code], [400, 'DOMAIN_UNKNOWN']);
  const visits = await problem(shlink.getShortUrlVisits({ shortCode: 'shlink-taken' }));
  assert.deepEqual([visits.type, visits.status], [ErrorType.NOT_FOUND, 404]);
  const mercure = await problem(shlink.mercureInfo());
  assert.deepEqual([mercure.type, mercure.status], [ErrorType.MERCURE_NOT_CONFIGURED, 501]);

  const wrongKey = await problem(client('sk_live_not_a_key').listShortUrls());
  assert.deepEqual([wrongKey.type, wrongKey.status], [ErrorType.INVALID_API_KEY, 401]);
  const noKey = await fetch(`${base}/rest/v3/short-urls`);
  assert.match(noKey.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.deepEqual([((await noKey.json()) as Problem).type, noKey.status], [ErrorType.INVALID_AUTHORIZATION, 401]);
  assert.equal((await client('').health()).status, 'pass', 'health needs no key');
  assert.equal(((await (await fetch(`${base}/rest/health`)).json()) as { status: string }).status, 'pass');

  const asViewer = client(viewer.secret);
  assert.ok((await asViewer.listShortUrls()).pagination.totalItems >= 1, 'a viewer reads');
  const viewerCreate = await problem(asViewer.createShortUrl({ longUrl: 'https://example.com/viewer' }));
  assert.deepEqual(
    [viewerCreate.type, viewerCreate.status, viewerCreate.code],
    ['urn:shortener:error:ROLE_FORBIDDEN', 403, 'ROLE_FORBIDDEN'],
  );
  const viewerDelete = await problem(asViewer.deleteShortUrl({ shortCode: 'shlink-taken' }));
  assert.deepEqual([viewerDelete.status, viewerDelete.code], [403, 'ROLE_FORBIDDEN']);

  // Another workspace's key neither sees nor touches the link.
  const other = await workspaceWith(database.url, 'shlink-other', { admin: 'admin' });
  const elsewhere = client(other.keys.admin.secret);
  assert.equal((await elsewhere.listShortUrls()).pagination.totalItems, 0);
  const foreign = await problem(elsewhere.deleteShortUrl({ shortCode: 'shlink-taken' }));
  assert.deepEqual([foreign.type, foreign.status], [ErrorType.INVALID_SHORTCODE, 404]);
  assert.equal((await shlink.getShortUrl({ shortCode: 'shlink-taken' })).longUrl, 'https://example.com/taken');

  // Shlink's web client runs on another origin: a preflight for X-Api-Key, and CORS on the answers.
  const preflight = await fetch(`${base}/rest/v3/short-urls`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.shlink.io',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-api-key,content-type',
    },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-Api-Key/i);
  const answered = await fetch(`${base}/rest/v3/short-urls`, { headers: { 'x-api-key': admin.secret, origin: 'https://app.shlink.io' } });
  assert.equal(answered.headers.get('access-control-allow-origin'), '*');
});

test("Shlink's creates and POST /links share one create limit per key", async (t) => {
  const { base, client } = await serve(t, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_CREATES_PER_KEY: '3' });
  const { member } = await keysWith(database.url, { member: 'member' });
  const ours = (i: number) => createThroughOurApi(base, member.secret, `https://example.com/limit/${i}`);
  assert.equal((await ours(1)).status, 201);
  assert.equal((await ours(2)).status, 201);
  const shlink = client(member.secret);
  await shlink.createShortUrl({ longUrl: 'https://example.com/limit/3' });
  const limited = await problem(shlink.createShortUrl({ longUrl: 'https://example.com/limit/4' }));
  assert.deepEqual([limited.status, limited.code], [429, 'RATE_LIMITED']);
  assert.equal((await ours(5)).status, 429);
});
