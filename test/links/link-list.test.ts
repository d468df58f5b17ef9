// The link list of a workspace (GET /links), its tags (GET /tags), and the titles and tags links
// carry: keyset pages that hold while links are being created, the search, the filters, and one
// workspace's links never shown to another. Each part of the file has a workspace of its own, so
// that every list it reads is an exact set.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { SAMPLE_SIZE, TAG_FIRST_MAX, WALK_MAX } from '../../src/links/list-store.ts';
import { errorOf, bearer, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let app: FastifyInstance;
let pool: pg.Pool;
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  database = await createTestDatabase('link_list');
  ({ app, pool } = await startApp({ after: (fn) => cleanups.push(fn) }, database.url));
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

interface Link {
  code: string;
  shortUrl: string;
  url: string;
  title: string | null;
  tags: string[];
  expiresAt: string | null;
  disabled: boolean;
  state: 'active' | 'expired' | 'disabled';
  createdAt: string;
  creator: { id: number; name: string } | null;
  clicks: number;
  botClicks: number;
}
interface Page {
  links: Link[];
  nextCursor: string | null;
}

const sorted = (codes: Iterable<string>) => [...codes].sort();

async function create(key: CreatedKey, body: Record<string, unknown>): Promise<Link> {
  const res = await app.inject({ method: 'POST', url: '/links', headers: bearer(key), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<Link>();
}

async function patch(key: CreatedKey, code: string, body: Record<string, unknown>): Promise<Link> {
  const res = await app.inject({ method: 'PATCH', url: `/links/${code}`, headers: bearer(key), payload: body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Link>();
}

async function page(key: CreatedKey, query: string): Promise<Page> {
  const res = await app.inject({ url: `/links?${query}`, headers: bearer(key) });
  assert.equal(res.statusCode, 200, `GET /links?${query}: ${res.body}`);
  return res.json<Page>();
}

/** Every page of a list, following nextCursor until it is null; `beforePage(n)` runs before each page, n pages having been read. */
async function walk(key: CreatedKey, query: string, beforePage: (n: number) => Promise<void> = async () => {}) {
  const pages: Link[][] = [];
  let cursor: string | null = null;
  do {
    if (pages.length > 500) assert.fail(`GET /links?${query}: still a nextCursor after 500 pages`);
    await beforePage(pages.length);
    const next: Page = await page(key, cursor === null ? query : `${query}&cursor=${cursor}`);
    pages.push(next.links);
    cursor = next.nextCursor;
  } while (cursor !== null);
  return { pages, links: pages.flat() };
}

/** The codes a list holds, in order, over all its pages. */
async function codesOf(key: CreatedKey, query: string): Promise<string[]> {
  return (await walk(key, `limit=100&${query}`)).links.map((link) => link.code);
}

/** created_at of each link as Postgres has it (to the microsecond), as an ISO string. */
async function exactCreatedAt(codes: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ code: string; at: string }>(
    `SELECT code, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at FROM links WHERE code = ANY($1)`,
    [codes],
  );
  return new Map(rows.map((row) => [row.code, row.at]));
}

async function setClicks(totals: Record<string, number>, botClicks: Record<string, number> = {}): Promise<void> {
  const codes = Object.keys(totals);
  const { rowCount } = await pool.query(
    `UPDATE link_totals t SET clicks = v.clicks, bot_clicks = v.bots
     FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS v(code, clicks, bots) WHERE t.code = v.code`,
    [codes, codes.map((code) => totals[code]), codes.map((code) => botClicks[code] ?? 0)],
  );
  assert.equal(rowCount, codes.length, 'every link has its link_totals row');
}

/**
 * Creates links one after another in the background. `reached(n)` resolves once n of them are
 * answered: a walk that waits for it before each page is sure to have links created between pages.
 */
function createInBackground(key: CreatedKey, count: number, label: string) {
  const codes: string[] = [];
  const waiting: { n: number; resolve: () => void }[] = [];
  const wake = () => {
    for (const waiter of waiting.filter(({ n }) => codes.length >= n)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const done = (async () => {
    for (let i = 0; i < count; i++) {
      codes.push((await create(key, { url: `https://example.com/${label}/${i}`, tags: ['during'] })).code);
      wake();
    }
  })();
  return {
    codes,
    done,
    reached(n: number): Promise<void> {
      if (codes.length >= Math.min(n, count)) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiting.push({ n: Math.min(n, count), resolve });
      return Promise.race([promise, done]);
    },
  };
}

/** Asserts that `links` hold each of `expected` exactly once and no code twice. */
function assertEachOnce(links: readonly Link[], expected: readonly string[], what: string): void {
  const seen = new Map<string, number>();
  for (const { code } of links) seen.set(code, (seen.get(code) ?? 0) + 1);
  assert.deepEqual(
    [...seen].filter(([, n]) => n > 1),
    [],
    `${what}: no code twice`,
  );
  assert.deepEqual(
    expected.filter((code) => !seen.has(code)),
    [],
    `${what}: every link that existed before the walk`,
  );
}

describe('GET /links: keyset pages', () => {
  let pager: CreatedKey;
  /** The links created before the first walk, newest last. */
  const seeded: string[] = [];
  const clicksOf = (i: number) => (i < 30 ? 1000 - i : i % 6); // 30 distinct totals, then six totals of 20 links each

  before(async () => {
    ({
      keys: { pager },
    } = await workspaceWith(database.url, 'paging', { pager: 'member' }));
    // Created 50 at a time: the write queue commits them in a few batches, so many share a created_at
    // and the code alone orders them.
    for (let start = 0; start < 150; start += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, j) => {
          const i = start + j;
          return create(pager, {
            url: `https://example.com/seed/${i}`,
            ...(i % 3 === 0 ? { title: `Seed number ${i}` } : {}),
            ...(i % 4 === 0 ? { tags: ['seed', `group-${i % 8}`] } : {}),
          });
        }),
      );
      seeded.push(...batch.map((link) => link.code));
    }
  });

  test('newest first: a walk of 7-link pages during creates shows each earlier link once, by (createdAt, code), to the end', async () => {
    const at = await exactCreatedAt(seeded);
    const shared = seeded.filter((code) => seeded.some((other) => other !== code && at.get(other) === at.get(code)));
    assert.ok(shared.length >= 10, `links sharing a created_at, so that the code breaks ties: ${shared.length}`);

    const during = createInBackground(pager, 60, 'during-created');
    const { pages, links } = await walk(pager, 'limit=7', (n) => during.reached(3 * n));
    await during.done;
    assert.equal(during.codes.length, 60);

    assertEachOnce(links, seeded, 'the walk');
    const known = new Set([...seeded, ...during.codes]);
    assert.deepEqual(
      links.filter(({ code }) => !known.has(code)),
      [],
      'only links of this workspace',
    );
    assert.ok(pages.length >= Math.ceil(150 / 7), `pages: ${pages.length}`);
    for (const [i, onPage] of pages.entries()) {
      if (i < pages.length - 1) assert.equal(onPage.length, 7, `page ${i + 1} is full`);
      else assert.ok(onPage.length >= 1 && onPage.length <= 7, `the last page has 1 to 7 links: ${onPage.length}`);
    }

    // The order, by created_at as Postgres keeps it (the API's createdAt is that, to the millisecond).
    const exact = await exactCreatedAt(links.map(({ code }) => code));
    for (const link of links) assert.equal(link.createdAt, `${exact.get(link.code)?.slice(0, 23)}Z`, `${link.code}: createdAt`);
    for (let i = 1; i < links.length; i++) {
      const [a, b] = [links[i - 1] as Link, links[i] as Link];
      const [atA, atB] = [exact.get(a.code) ?? '', exact.get(b.code) ?? ''];
      assert.ok(atA > atB || (atA === atB && a.code > b.code), `#${i}: ${a.code} (${atA}) before ${b.code} (${atB})`);
    }
  });

  test('most clicked first: a walk of 7-link pages during creates shows each earlier link once, ties by code descending', async () => {
    await setClicks(Object.fromEntries(seeded.map((code, i) => [code, clicksOf(i)])));
    const existing = (await walk(pager, 'limit=100')).links.map(({ code }) => code);
    assert.equal(existing.length, 210, 'the 150 seeded links and the 60 created during the first walk');

    const during = createInBackground(pager, 60, 'during-clicks');
    const { pages, links } = await walk(pager, 'sort=clicks&limit=7', (n) => during.reached(3 * n));
    await during.done;
    assert.equal(during.codes.length, 60);
    assert.ok(pages.length >= Math.ceil(210 / 7), `pages: ${pages.length}`);

    assertEachOnce(links, existing, 'the walk by clicks');
    const expectedClicks = new Map(seeded.map((code, i) => [code, clicksOf(i)]));
    for (const link of links) assert.equal(link.clicks, expectedClicks.get(link.code) ?? 0, `${link.code}: clicks`);
    const ties = links.filter((link, i) => i > 0 && links[i - 1]?.clicks === link.clicks).length;
    assert.ok(ties >= 100, `ties on clicks broken by the code: ${ties}`);
    for (let i = 1; i < links.length; i++) {
      const [a, b] = [links[i - 1] as Link, links[i] as Link];
      assert.ok(
        a.clicks > b.clicks || (a.clicks === b.clicks && a.code > b.code),
        `#${i}: ${a.code} (${a.clicks}) before ${b.code} (${b.clicks})`,
      );
    }
  });

  test('a cursor of the other order, a tampered cursor, or one that is not base64url JSON: 400 CURSOR_INVALID', async () => {
    const byCreated = (await page(pager, 'limit=3')).nextCursor;
    const byClicks = (await page(pager, 'limit=3&sort=clicks')).nextCursor;
    assert.ok(byCreated !== null && byClicks !== null);
    // Both are good cursors where they belong.
    assert.equal((await page(pager, `limit=3&cursor=${byCreated}`)).links.length, 3);
    assert.equal((await page(pager, `limit=3&sort=clicks&cursor=${byClicks}`)).links.length, 3);

    const [sort, value, code] = JSON.parse(Buffer.from(byCreated, 'base64url').toString()) as [string, string, string];
    assert.equal(sort, 'created');
    const encode = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');
    const refused: Record<string, string> = {
      'a created cursor, sort=clicks': `sort=clicks&cursor=${byCreated}`,
      'a clicks cursor, sorted by created': `cursor=${byClicks}`,
      'a created cursor claiming clicks': `sort=clicks&cursor=${encode(['clicks', value, code])}`,
      'the value changed to a word': `cursor=${encode([sort, 'yesterday', code])}`,
      'the value changed to SQL': `cursor=${encode([sort, "2026-01-01' OR '1'='1", code])}`,
      'the code changed to one no link can have': `cursor=${encode([sort, value, 'a b'])}`,
      'an element added': `cursor=${encode([sort, value, code, 'extra'])}`,
      'an object instead of the array': `cursor=${encode({ sort, value, code })}`,
      'cut short': `cursor=${byCreated.slice(0, -3)}`,
      'base64url of text that is not JSON': `cursor=${Buffer.from('not json at all').toString('base64url')}`,
      'characters outside base64url': `cursor=${encodeURIComponent(`${byCreated}+/=`)}`,
      'longer than any cursor given': `cursor=${'A'.repeat(201)}`,
    };
    for (const [what, query] of Object.entries(refused)) {
      const res = await app.inject({ url: `/links?limit=3&${query}`, headers: bearer(pager) });
      assert.equal(res.statusCode, 400, what);
      assert.equal(errorOf(res)?.code, 'CURSOR_INVALID', what);
    }
  });

  test('a cursor of the right shape whose date or count Postgres cannot read: 400 CURSOR_INVALID', async () => {
    const encode = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');
    for (const [query, what] of [
      [`cursor=${encode(['created', '2026-13-45 25:61:61+00', 'abcd'])}`, 'month 13'],
      [`sort=clicks&cursor=${encode(['clicks', '9999999999999999999', 'abcd'])}`, 'beyond bigint'],
    ] as const) {
      const res = await app.inject({ url: `/links?${query}`, headers: bearer(pager) });
      assert.equal(res.statusCode, 400, what);
      assert.equal(errorOf(res)?.code, 'CURSOR_INVALID', what);
    }
  });
});

describe('GET /links: its query', () => {
  test('a bad limit, q, state, sort or creator, a parameter twice or unknown: 400 LIST_QUERY_INVALID naming it', async () => {
    const {
      keys: { reader },
    } = await workspaceWith(database.url, 'query', { reader: 'viewer' });
    const refused: [query: string, parameter: string][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=x', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=2.5', 'limit'],
      ['q=ab', 'q'],
      [`q=${encodeURIComponent('  ab  ')}`, 'q'],
      [`q=${'a'.repeat(101)}`, 'q'],
      ['state=gone', 'state'],
      ['state=ACTIVE', 'state'],
      ['sort=popular', 'sort'],
      ['creator=me', 'creator'],
      ['creator=-3', 'creator'],
      ['tag=a&tag=b', 'tag'],
      ['state=active&state=disabled', 'state'],
      ['colour=red', 'colour'],
    ];
    for (const [query, parameter] of refused) {
      const res = await app.inject({ url: `/links?${query}`, headers: bearer(reader) });
      assert.equal(res.statusCode, 400, query);
      const error = errorOf(res);
      assert.equal(error?.code, 'LIST_QUERY_INVALID', query);
      assert.match(error?.message ?? '', new RegExp(`\\b${parameter}\\b`), `${query}: the message names ${parameter}`);
    }
    // The bounds themselves are accepted.
    for (const query of [
      'limit=1',
      'limit=100',
      'q=abc',
      `q=${'a'.repeat(100)}`,
      `q=${encodeURIComponent('ä'.repeat(100))}`,
      'creator=1',
      'state=expired',
    ]) {
      assert.deepEqual(await page(reader, query), { links: [], nextCursor: null, total: 0, totalAtLeast: false }, query);
    }
  });

  test('without a key: 401', async () => {
    for (const url of ['/links', '/tags']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 401, url);
      assert.equal(errorOf(res)?.code, 'API_KEY_REQUIRED', url);
    }
  });
});

describe('GET /links: search', () => {
  let searcher: CreatedKey;
  const codes: Record<string, string> = {};

  before(async () => {
    ({
      keys: { searcher },
    } = await workspaceWith(database.url, 'search', { searcher: 'member' }));
    const links: [name: string, body: Record<string, unknown>][] = [
      ['in code', { url: 'https://a.example/one', alias: 'Zebra-Crossing42', title: 'first' }],
      ['in url', { url: 'https://shop.example/Winter-Boots?size=42', title: 'second' }],
      ['in title', { url: 'https://b.example/two', title: 'Quarterly Report' }],
      ['percent', { url: 'https://c.example/p', title: '100% off' }],
      ['percent decoy', { url: 'https://c.example/q', title: '100 kg off' }],
      ['underscore', { url: 'https://d.example/u', title: 'a_b' }],
      ['underscore decoy', { url: 'https://d.example/axb', title: 'axb' }],
      ['backslash', { url: 'https://e.example/w', title: 'C:\\temp' }],
      ['backslash decoy', { url: 'https://e.example/x', title: 'C:temp' }],
      ['umlauts', { url: 'https://f.example/spring', title: 'Frühling Ängste' }],
    ];
    for (const [name, body] of links) codes[name] = (await create(searcher, body)).code;
  });

  const found = async (q: string) => sorted(await codesOf(searcher, `q=${encodeURIComponent(q)}`));
  const codesNamed = (...names: string[]) => sorted(names.map((name) => codes[name] as string));

  test('q finds a substring of the code, of the target URL or of the title, whatever its case', async () => {
    assert.deepEqual(await found('ebra-CROSS'), codesNamed('in code'));
    assert.deepEqual(await found('WINTER-boots?SIZE'), codesNamed('in url'));
    assert.deepEqual(await found('rterly rep'), codesNamed('in title'));
    assert.deepEqual(await found('a.example/ONE'), codesNamed('in code'));
    // A match never spans two fields (code, URL and title are searched apart).
    assert.deepEqual(await found('ing42https'), []);
    assert.deepEqual(await found('42https://a'), []);
  });

  test('% , _ and \\ in q are the characters themselves, not wildcards', async () => {
    assert.deepEqual(await found('100% off'), codesNamed('percent'));
    assert.deepEqual(await found('a_b'), codesNamed('underscore'));
    assert.deepEqual(await found('C:\\te'), codesNamed('backslash'));
    // The decoys are there to be found by what they hold.
    assert.deepEqual(await found('0 kg o'), codesNamed('percent decoy'));
    assert.deepEqual(await found('axb'), codesNamed('underscore decoy'));
  });

  test('q finds letters beyond ASCII written as the title has them', async () => {
    assert.deepEqual(await found('Ängste'), codesNamed('umlauts'));
    assert.deepEqual(await found('FRühling'), codesNamed('umlauts'));
  });

  test('q folds the case of letters beyond ASCII: "ängs" and "FRÜH" find "Frühling Ängste"', async () => {
    assert.deepEqual(await found('ängs'), codesNamed('umlauts'));
    assert.deepEqual(await found('FRÜH'), codesNamed('umlauts'));
  });
});

describe('GET /links: filters', () => {
  let keys: Record<'boss' | 'alice' | 'bob', CreatedKey>;
  const code = {} as Record<'a1' | 'a2' | 'a3' | 'b1' | 'b2' | 'b3' | 'c1', string>;

  before(async () => {
    ({ keys } = await workspaceWith(database.url, 'filters', { boss: 'admin', alice: 'member', bob: 'member' }));
    const { alice, bob, boss } = keys;
    const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString();
    code.a1 = (await create(alice, { url: 'https://example.com/a1', title: 'Spring market', tags: ['spring', 'Sale'] })).code;
    code.a2 = (await create(alice, { url: 'https://example.com/a2', tags: ['spring'], expiresAt: inAWeek })).code;
    code.a3 = (await create(alice, { url: 'https://example.com/a3', tags: ['autumn'] })).code;
    code.b1 = (await create(bob, { url: 'https://example.com/b1', title: 'market stall', tags: ['spring'] })).code;
    code.b2 = (await create(bob, { url: 'https://example.com/b2', expiresAt: inAWeek })).code;
    code.b3 = (await create(bob, { url: 'https://example.com/b3', tags: ['springtime'], expiresAt: inAWeek })).code;
    code.c1 = (await create(boss, { url: 'https://example.com/c1', title: 'Market day', tags: ['SPRING'] })).code;
    // The API refuses past expiries: a2 and b3 expire in Postgres. b3 is disabled too (disabled wins).
    const { rowCount } = await pool.query(`UPDATE links SET expires_at = now() - interval '1 hour' WHERE code = ANY($1)`, [
      [code.a2, code.b3],
    ]);
    assert.equal(rowCount, 2);
    await patch(alice, code.a3, { disabled: true });
    await patch(bob, code.b3, { disabled: true });
    await setClicks({
      [code.a1]: 5,
      [code.a2]: 50,
      [code.a3]: 7,
      [code.b1]: 20,
      [code.b2]: 20,
    });
  });

  const names = (codes: readonly string[]) => codes.map((c) => Object.entries(code).find(([, value]) => value === c)?.[0] ?? c);
  const listed = async (query: string) => names(await codesOf(keys.boss, query));
  const set = async (query: string) => (await listed(query)).sort();

  test('tag= keeps the links with exactly that tag', async () => {
    assert.deepEqual(await set('tag=spring'), ['a1', 'a2', 'b1']);
    assert.deepEqual(await set('tag=SPRING'), ['c1']);
    assert.deepEqual(await set('tag=Sale'), ['a1']);
    assert.deepEqual(await set('tag=springtime'), ['b3']);
  });

  test('state= keeps active, expired (and not disabled) or disabled links, and each link shows its state', async () => {
    assert.deepEqual(await set('state=active'), ['a1', 'b1', 'b2', 'c1']);
    assert.deepEqual(await set('state=expired'), ['a2']);
    assert.deepEqual(await set('state=disabled'), ['a3', 'b3']);
    const all = (await walk(keys.boss, 'limit=100')).links;
    assert.deepEqual(Object.fromEntries(all.map((link) => [names([link.code])[0], link.state])), {
      a1: 'active',
      a2: 'expired',
      a3: 'disabled',
      b1: 'active',
      b2: 'active',
      b3: 'disabled',
      c1: 'active',
    });
  });

  test('creator= keeps the links made by that key', async () => {
    assert.deepEqual(await set(`creator=${keys.alice.id}`), ['a1', 'a2', 'a3']);
    assert.deepEqual(await set(`creator=${keys.bob.id}`), ['b1', 'b2', 'b3']);
    assert.deepEqual(await set(`creator=${keys.boss.id}`), ['c1']);
  });

  test('filters combine with each other, with q, and with sort=clicks', async () => {
    assert.deepEqual(await set('q=market'), ['a1', 'b1', 'c1']);
    assert.deepEqual(await set('q=market&tag=spring'), ['a1', 'b1']);
    assert.deepEqual(await set('tag=spring&state=active'), ['a1', 'b1']);
    assert.deepEqual(await set(`tag=spring&creator=${keys.alice.id}`), ['a1', 'a2']);
    assert.deepEqual(await set(`creator=${keys.alice.id}&state=expired`), ['a2']);
    assert.deepEqual(await set(`q=market&creator=${keys.bob.id}&state=active`), ['b1']);
    assert.deepEqual(await listed('sort=clicks&tag=spring'), ['a2', 'b1', 'a1']);
    const tied = names([code.b1, code.b2].toSorted((x, y) => (x < y ? 1 : -1)));
    assert.deepEqual(await listed('sort=clicks&state=active'), [...tied, 'a1', 'c1']);
    assert.deepEqual(await listed(`sort=clicks&creator=${keys.alice.id}&q=example.com/a`), ['a2', 'a3', 'a1']);
    // Paged by one, the filtered order is the same.
    const byOne = (await walk(keys.boss, 'limit=1&sort=clicks&state=active')).links.map((link) => link.code);
    assert.deepEqual(names(byOne), await listed('sort=clicks&state=active'));
  });

  test('a search over twenty thousand links finds every match, the oldest too, in pages in order, walked or not', async () => {
    const { id, keys: own } = await workspaceWith(database.url, 'window', { reader: 'viewer' });
    // WALK_MAX + 60 links, oldest first; "needle" is in the 3 oldest titles and in every 7th of the newest 200.
    const total = WALK_MAX + 60;
    assert.ok(total > SAMPLE_SIZE);
    await pool.query(
      `INSERT INTO links (code, url, workspace_id, title, created_at)
       SELECT 'win-' || i, 'https://example.com/w/' || i, $1,
              CASE WHEN i <= 3 THEN 'an old needle ' || i WHEN i > $2 - 200 AND i % 7 = 0 THEN 'a needle ' || i ELSE 'hay ' || i END,
              now() - make_interval(secs => $2 - i)
       FROM generate_series(1, $2) AS i`,
      [id, total],
    );
    await pool.query('ANALYZE links');
    const expected = (
      await pool.query<{ code: string }>(
        `SELECT code FROM links WHERE workspace_id = $1 AND title LIKE '%needle%' ORDER BY created_at DESC, code DESC`,
        [id],
      )
    ).rows.map((row) => row.code);
    const newer = Array.from({ length: 200 }, (_, i) => total - i).filter((i) => i % 7 === 0).length;
    assert.equal(expected.length, 3 + newer, 'the needles are where they were put');
    assert.deepEqual(expected.slice(-3), ['win-3', 'win-2', 'win-1']);
    // The sample of the newest SAMPLE_SIZE links holds 28 needles: dense enough to walk for pages of 10 and 50.
    const plans = app.linkLists.plans;
    const earlier = { ...plans };
    // Pages of 10: the first ones come from the newest links, the last from the oldest three.
    assert.deepEqual(
      (await walk(own.reader, 'limit=10&q=needle')).links.map((link) => link.code),
      expected,
    );
    assert.ok(plans.walked >= earlier.walked + 2, 'the first pages were walked');
    assert.ok(plans.walkedShort >= earlier.walkedShort + 1, 'the last page was short of a page: the planner answered it');
    // A page of 50: the newest WALK_MAX links hold 28 needles, the 3 oldest are beyond the walk: the planner's answer has them.
    const short = plans.walkedShort;
    assert.deepEqual(
      (await page(own.reader, 'limit=50&q=needle')).links.map((link) => link.code),
      expected,
    );
    assert.equal(plans.walkedShort, short + 1);
    // No needle among the newest: the planner's plan (the trigram index).
    const planned = plans.planner;
    assert.deepEqual(
      (await walk(own.reader, 'limit=100&q=old%20needle')).links.map((link) => link.code),
      ['win-3', 'win-2', 'win-1'],
    );
    assert.equal(plans.planner, planned + 1);
  });

  test(`most clicked first with a tag: the same pages whether up to ${TAG_FIRST_MAX} links have it (found first) or more (the clicks index walked)`, async () => {
    const { id, keys: own } = await workspaceWith(database.url, 'many', { reader: 'viewer' });
    // Inserted in one statement: TAG_FIRST_MAX + 40 links tagged "many", with totals of every size, ties included.
    const many = TAG_FIRST_MAX + 40;
    await pool.query(
      `INSERT INTO links (code, url, workspace_id, tags)
       SELECT 'many-' || i, 'https://example.com/many/' || i, $1, CASE WHEN i <= $2 THEN ARRAY['many', 'few'] ELSE ARRAY['many'] END
       FROM generate_series(1, $3) AS i`,
      [id, 30, many],
    );
    await pool.query(`UPDATE link_totals SET clicks = (hashtext(code) & 1023) WHERE workspace_id = $1`, [id]);
    /** The order the list must have: Postgres's own sort of the rows that pass, by clicks then code, both descending. */
    const expected = async (tag: string, limit: number) =>
      (
        await pool.query<{ code: string }>(
          `SELECT t.code FROM link_totals t JOIN links l USING (code) WHERE t.workspace_id = $1 AND $2 = ANY(l.tags)
           ORDER BY t.clicks DESC, t.code COLLATE "C" DESC LIMIT $3`,
          [id, tag, limit],
        )
      ).rows.map((row) => row.code);
    // 30 have "few": found first. More than TAG_FIRST_MAX have "many": the walk.
    const plans = app.linkLists.plans;
    const tagFirst = plans.tagFirst;
    assert.deepEqual(
      (await walk(own.reader, 'limit=7&sort=clicks&tag=few')).links.map((link) => link.code),
      await expected('few', 30),
    );
    assert.equal(plans.tagFirst, tagFirst + 5, 'each of the 5 pages of 7 read the tag first');
    // With a search, newest first: the tag first too.
    const searched = (
      await pool.query<{ code: string }>(
        `SELECT code FROM links WHERE workspace_id = $1 AND 'few' = ANY(tags) AND url LIKE '%/1%' ORDER BY created_at DESC, code COLLATE "C" DESC`,
        [id],
      )
    ).rows.map((row) => row.code);
    assert.ok(searched.length > 3);
    assert.deepEqual(
      (await walk(own.reader, 'limit=3&tag=few&q=many/1')).links.map((link) => link.code),
      searched,
    );
    assert.ok(plans.tagFirst > tagFirst + 5);
    const planned = plans.planner;
    // The first three pages of 100 of the walk.
    const pages: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 3; n++) {
      const next: Page = await page(own.reader, `limit=100&sort=clicks&tag=many${cursor === null ? '' : `&cursor=${cursor}`}`);
      pages.push(...next.links.map((link) => link.code));
      cursor = next.nextCursor;
    }
    assert.deepEqual(pages, await expected('many', 300));
    assert.equal(plans.planner, planned + 3, 'the pages of "many" were the planner’s');
  });

  test("another workspace's key sees none of these links: its own list only, and 404 LINK_NOT_FOUND for any of them", async () => {
    const {
      keys: { stranger },
    } = await workspaceWith(database.url, 'elsewhere', { stranger: 'admin' });
    const own = await create(stranger, { url: 'https://example.com/theirs', title: 'market elsewhere', tags: ['spring'] });
    assert.deepEqual(await codesOf(stranger, ''), [own.code]);
    assert.deepEqual(await codesOf(stranger, 'q=market'), [own.code]);
    assert.deepEqual(await codesOf(stranger, 'tag=spring'), [own.code]);
    assert.deepEqual(await codesOf(stranger, `creator=${keys.alice.id}`), []);
    assert.ok(!(await codesOf(keys.boss, '')).includes(own.code), 'nor does this workspace see the stranger’s');
    for (const [name, theirs] of Object.entries(code)) {
      for (const [method, payload] of [['GET'], ['PATCH', { title: 'mine now' }], ['DELETE']] as const) {
        const res = await app.inject({ method, url: `/links/${theirs}`, headers: bearer(stranger), ...(payload ? { payload } : {}) });
        assert.equal(res.statusCode, 404, `${method} ${name}`);
        assert.equal(errorOf(res)?.code, 'LINK_NOT_FOUND', `${method} ${name}`);
      }
    }
    const res = await app.inject({ url: `/links/${own.code}`, headers: bearer(keys.boss) });
    assert.equal(errorOf(res)?.code, 'LINK_NOT_FOUND');
    // Nothing the stranger tried changed a link here.
    assert.equal((await page(keys.boss, `q=${code.a1}`)).links[0]?.title, 'Spring market');
  });
});

describe('titles and tags', () => {
  let keys: Record<'owner' | 'boss', CreatedKey>;
  let workspaceId: number;
  const linkCount = async () =>
    Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM links WHERE workspace_id = $1', [workspaceId])).rows[0]?.n);

  before(async () => {
    ({ id: workspaceId, keys } = await workspaceWith(database.url, 'fields', { owner: 'member', boss: 'admin' }));
  });

  async function details(code: string): Promise<Link> {
    const res = await app.inject({ url: `/links/${code}`, headers: bearer(keys.boss) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Link>();
  }

  test('a create trims the title and tags and keeps repeated tags (any case) once, as first spelled; GET shows it all', async () => {
    const created = await create(keys.owner, {
      url: 'https://example.com/fields',
      title: '  Spring launch \t ',
      tags: [' spring ', 'Launch', 'SPRING', 'launch', 'q2', 'Spring'],
    });
    assert.deepEqual(created, {
      code: created.code,
      domain: 'sho.rt',
      shortUrl: `https://sho.rt/${created.code}`,
      url: 'https://example.com/fields',
      expiresAt: null,
      startsAt: null,
      title: 'Spring launch',
      tags: ['spring', 'Launch', 'q2'],
      options: null,
    });
    const shown = await details(created.code);
    assert.match(shown.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(shown, {
      code: created.code,
      domain: 'sho.rt',
      shortUrl: `https://sho.rt/${created.code}`,
      url: 'https://example.com/fields',
      title: 'Spring launch',
      tags: ['spring', 'Launch', 'q2'],
      expiresAt: null,
      startsAt: null,
      disabled: false,
      archivedAt: null,
      state: 'active',
      safety: null,
      createdAt: shown.createdAt,
      creator: { id: keys.owner.id, name: 'owner' },
      clicks: 0,
      botClicks: 0,
      clicksUsed: null,
      options: null,
    });
    const { rows } = await pool.query<{ title: string; tags: string[] }>('SELECT title, tags FROM links WHERE code = $1', [created.code]);
    assert.deepEqual(rows, [{ title: 'Spring launch', tags: ['spring', 'Launch', 'q2'] }]);
  });

  test('an empty or blank title is no title; 200 characters (astral ones count once) and 10 tags of 40 are allowed', async () => {
    for (const title of ['', '   ', null]) {
      assert.equal((await create(keys.owner, { url: 'https://example.com/untitled', title })).title, null, JSON.stringify(title));
    }
    const longest = '😀'.repeat(200);
    const tenTags = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(40, 'x'));
    // Eleven tags, one of them the same as another but for its case: ten once merged.
    const created = await create(keys.owner, {
      url: 'https://example.com/full',
      title: longest,
      tags: [...tenTags, tenTags[3]?.toUpperCase()],
    });
    assert.equal(created.title, longest);
    assert.deepEqual(created.tags, tenTags);
    assert.deepEqual((await details(created.code)).tags, tenTags);
  });

  test('a title over 200 or with a control character: 400 TITLE_INVALID; bad tags: 400 TAGS_INVALID, on create and PATCH', async () => {
    const refused: [body: Record<string, unknown>, code: string][] = [
      [{ title: 'x'.repeat(201) }, 'TITLE_INVALID'],
      [{ title: `${'😀'.repeat(200)}x` }, 'TITLE_INVALID'],
      [{ title: 'bell\u0007' }, 'TITLE_INVALID'],
      [{ title: 'two\nlines' }, 'TITLE_INVALID'],
      [{ title: 'line\u2028separator' }, 'TITLE_INVALID'],
      [{ tags: Array.from({ length: 11 }, (_, i) => `tag${i}`) }, 'TAGS_INVALID'],
      [{ tags: ['x'.repeat(41)] }, 'TAGS_INVALID'],
      [{ tags: ['ok', 'a,b'] }, 'TAGS_INVALID'],
      [{ tags: ['a|b'] }, 'TAGS_INVALID'],
      [{ tags: ['ok', ''] }, 'TAGS_INVALID'],
      [{ tags: ['   '] }, 'TAGS_INVALID'],
      [{ tags: ['tab\there'] }, 'TAGS_INVALID'],
    ];
    const countBefore = await linkCount();
    const target = await create(keys.owner, { url: 'https://example.com/target', title: 'Kept', tags: ['kept'] });
    for (const [body, code] of refused) {
      const what = JSON.stringify(body).slice(0, 60);
      const created = await app.inject({
        method: 'POST',
        url: '/links',
        headers: bearer(keys.owner),
        payload: { url: 'https://example.com/refused', ...body },
      });
      assert.equal(created.statusCode, 400, `create ${what}`);
      assert.equal(errorOf(created)?.code, code, `create ${what}`);
      const patched = await app.inject({ method: 'PATCH', url: `/links/${target.code}`, headers: bearer(keys.owner), payload: body });
      assert.equal(patched.statusCode, 400, `PATCH ${what}`);
      assert.equal(errorOf(patched)?.code, code, `PATCH ${what}`);
    }
    assert.equal(await linkCount(), countBefore + 1, 'no refused create made a link');
    const kept = await details(target.code);
    assert.deepEqual([kept.title, kept.tags], ['Kept', ['kept']], 'no refused PATCH changed the link');
  });

  test('PATCH follows the rules of a create; tags [] removes the tags and title null the title, each leaving the other', async () => {
    const { code } = await create(keys.owner, { url: 'https://example.com/patched', title: 'Before', tags: ['old'] });
    const changed = await patch(keys.owner, code, { title: '  After  ', tags: ['b', 'B', ' c ', 'b'] });
    assert.deepEqual([changed.title, changed.tags], ['After', ['b', 'c']]);
    const read = await details(code);
    assert.deepEqual([read.title, read.tags], ['After', ['b', 'c']]);

    const untagged = await patch(keys.owner, code, { tags: [] });
    assert.deepEqual([untagged.title, untagged.tags], ['After', []]);
    const reread = await details(code);
    assert.deepEqual([reread.title, reread.tags], ['After', []]);

    await patch(keys.owner, code, { tags: ['back'] });
    const untitled = await patch(keys.owner, code, { title: null });
    assert.deepEqual([untitled.title, untitled.tags], [null, ['back']]);
    const shown = await details(code);
    assert.deepEqual(
      [shown.title, shown.tags, shown.state, shown.creator],
      [null, ['back'], 'active', { id: keys.owner.id, name: 'owner' }],
    );

    // A blank title removes it too; the admin may change the member's link.
    await patch(keys.boss, code, { title: 'Again' });
    assert.equal((await patch(keys.boss, code, { title: '  ' })).title, null);
    assert.equal((await details(code)).title, null);
  });
});

describe('GET /tags', () => {
  test('counts tags as the links hold them through creates, changes, disabling and deletes; most used first; only its own', async () => {
    const {
      keys: { boss, member },
    } = await workspaceWith(database.url, 'tagged', { boss: 'admin', member: 'member' });
    const {
      keys: { stranger },
    } = await workspaceWith(database.url, 'tagged-elsewhere', { stranger: 'admin' });

    const tags = async (key: CreatedKey) => {
      const res = await app.inject({ url: '/tags', headers: bearer(key) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ tags: { tag: string; links: number }[] }>().tags;
    };
    /** GET /tags, checked against the tags the workspace's links hold and against `expected`. */
    const assertTags = async (key: CreatedKey, expected: Record<string, number>, step: string) => {
      const listed = await tags(key);
      for (let i = 1; i < listed.length; i++) {
        assert.ok((listed[i - 1]?.links ?? 0) >= (listed[i]?.links ?? 0), `${step}: most used first`);
      }
      const held = new Map<string, number>();
      for (const link of (await walk(key, 'limit=100')).links) for (const tag of link.tags) held.set(tag, (held.get(tag) ?? 0) + 1);
      const asObject = Object.fromEntries(listed.map(({ tag, links }) => [tag, links]));
      assert.equal(listed.length, Object.keys(asObject).length, `${step}: each tag once`);
      assert.deepEqual(asObject, Object.fromEntries(held), `${step}: as the links hold them`);
      assert.deepEqual(asObject, expected, step);
    };

    const one = (await create(member, { url: 'https://example.com/t1', tags: ['spring', 'sale'] })).code;
    const two = (await create(member, { url: 'https://example.com/t2', tags: ['spring'] })).code;
    const three = (await create(boss, { url: 'https://example.com/t3', tags: ['spring', 'autumn'] })).code;
    const four = (await create(member, { url: 'https://example.com/t4', tags: ['sale'] })).code;
    await create(stranger, { url: 'https://example.com/s1', tags: ['spring', 'theirs'] });
    await create(stranger, { url: 'https://example.com/s2', tags: ['theirs'] });
    await assertTags(boss, { spring: 3, sale: 2, autumn: 1 }, 'created');
    assert.deepEqual(await tags(boss), [
      { tag: 'spring', links: 3 },
      { tag: 'sale', links: 2 },
      { tag: 'autumn', links: 1 },
    ]);

    await patch(boss, three, { tags: ['autumn', 'winter'] });
    await assertTags(boss, { spring: 2, sale: 2, autumn: 1, winter: 1 }, 'a tag changed');
    await patch(member, two, { disabled: true });
    await assertTags(boss, { spring: 2, sale: 2, autumn: 1, winter: 1 }, 'a link disabled');
    const deleted = await app.inject({ method: 'DELETE', url: `/links/${four}`, headers: bearer(member) });
    assert.equal(deleted.statusCode, 204);
    await assertTags(boss, { spring: 2, sale: 1, autumn: 1, winter: 1 }, 'a link deleted');
    await patch(member, one, { tags: [] });
    await assertTags(boss, { spring: 1, autumn: 1, winter: 1 }, 'the last "sale" removed');
    await patch(member, one, { url: 'https://example.com/t1-moved', title: 'Moved' });
    await assertTags(boss, { spring: 1, autumn: 1, winter: 1 }, 'a change without tags');
    assert.deepEqual(await tags(stranger), [
      { tag: 'theirs', links: 2 },
      { tag: 'spring', links: 1 },
    ]);
  });
});
