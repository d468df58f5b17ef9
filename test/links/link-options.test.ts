// Link options end to end on a real Postgres and Redis: created, shown, changed and removed through
// the API, refused with coded errors, and answered by the redirect (through the fast path: inject()
// goes over a real socket) from the LRU, from Redis and from Postgres alike.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createLink, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { deleteKeys, randomPrefix, redisInUse, SHARED_REDIS_URL } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';

const prefix = randomPrefix('options');
let database: TestDatabase;
let admin: string;
before(async () => {
  database = await createTestDatabase('link_options');
  admin = (await withClient(database.url, (client) => createApiKey(client, { name: 'admin', role: 'admin' }))).secret;
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

const REDIS = { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix };
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

async function instance(t: Cleanup, env: Record<string, string> = {}) {
  const { app } = await startApp(t, database.url, { ...REDIS, TRUST_PROXY: 'loopback', ...env });
  await until('invalidations heard', redisInUse(app));
  return app;
}

async function visit(app: FastifyInstance, path: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ url: path, headers });
  return { status: res.statusCode, location: res.headers.location };
}

describe('link options through the API', () => {
  test('a create takes options, answers them, and the redirect follows them from the LRU, Redis and Postgres', async (t) => {
    const app = await instance(t);
    const options = {
      redirectStatus: 307,
      forwardQuery: true,
      targets: [
        { when: { device: ['ios'] }, url: 'https://apps.apple.com/app/id42' },
        { when: { country: ['US'] }, url: 'https://example.com/us' },
        { when: { language: ['de'] }, url: 'https://example.com/de?lang=de' },
      ],
    };
    const created = await createLink(app, { url: 'https://example.com/home?utm_source=web', alias: 'opt-create', options });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.options, options);
    const read = await app.inject({ url: '/links/opt-create', headers: { authorization: `Bearer ${admin}` } });
    assert.deepEqual(read.json().options, options);

    const expectations: [Record<string, string>, string, string][] = [
      [{ 'user-agent': IPHONE }, '', 'https://apps.apple.com/app/id42'],
      [{ 'user-agent': DESKTOP, 'x-forwarded-for': '8.8.8.8' }, '?utm_source=sms', 'https://example.com/us?utm_source=sms'],
      [{ 'user-agent': DESKTOP, 'accept-language': 'de-CH,en;q=0.5' }, '?a=1', 'https://example.com/de?lang=de&a=1'],
      [{ 'user-agent': DESKTOP }, '?utm_source=sms&x=%20', 'https://example.com/home?utm_source=sms&x=%20'],
      [{}, '', 'https://example.com/home?utm_source=web'],
    ];
    const other = await instance(t);
    for (const [tier, from] of [
      ['the LRU the create filled', app],
      ['Redis, on another instance', other],
    ] as const) {
      for (const [headers, query, location] of expectations) {
        assert.deepEqual(
          await visit(from, `/opt-create${query}`, headers),
          { status: 307, location },
          `${tier}: ${JSON.stringify(headers)}${query}`,
        );
      }
    }
    // Postgres: a third instance with no Redis at all.
    const alone = await startApp(t, database.url, { TRUST_PROXY: 'loopback' });
    for (const [headers, query, location] of expectations)
      assert.deepEqual(await visit(alone.app, `/opt-create${query}`, headers), { status: 307, location }, `Postgres: ${query}`);
  });

  test('every option comes back as stored from the create, GET, the list and PATCH (none dropped by a response schema)', async (t) => {
    const app = await instance(t);
    const options = {
      redirectStatus: 308,
      forwardQuery: false,
      targets: [
        { when: { device: ['tablet'], from: '2026-01-01T00:00:00.000Z', query: { name: 'a', value: 'b' } }, url: 'https://example.com/t' },
      ],
      split: [
        { url: 'https://example.com/a', weight: 1 },
        { url: 'https://example.com/b', weight: 99 },
      ],
      preview: { title: 'T', description: 'D', image: 'https://cdn.example/i.png' },
      deepLink: { ios: 'myapp://i', android: 'https://app.example/a' },
    };
    const created = await createLink(app, { url: 'https://example.com/all', alias: 'opt-all', options });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.options, options);
    const headers = { authorization: `Bearer ${admin}` };
    assert.deepEqual((await app.inject({ url: '/links/opt-all', headers })).json().options, options);
    const listed = (await app.inject({ url: '/links?q=opt-all', headers })).json().links as { code: string; options: unknown }[];
    assert.deepEqual(listed.find((link) => link.code === 'opt-all')?.options, options);
    const patched = await app.inject({ method: 'PATCH', url: '/links/opt-all', headers, payload: { title: 'only the title' } });
    assert.deepEqual(patched.json().options, options, 'a PATCH without options keeps them');
  });

  test('an Idempotency-Key covers the options: the same options replay the create, other options are 422', async (t) => {
    const app = await instance(t);
    const create = (options: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: '/links',
        headers: { 'idempotency-key': 'opt-idem-1', authorization: `Bearer ${admin}` },
        payload: { url: 'https://example.com/idem', options },
      });
    const first = await create({ redirectStatus: 301 });
    assert.equal(first.statusCode, 201, first.body);
    const again = await create({ redirectStatus: 301 });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    const other = await create({ redirectStatus: 308 });
    assert.equal(other.statusCode, 422);
    assert.equal(other.json().error.code, 'IDEMPOTENCY_KEY_REUSED');
  });

  test('bad options are refused with a coded error naming the field; nothing is created', async (t) => {
    const app = await instance(t);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ redirectStatus: 303 }, 'REDIRECT_STATUS_INVALID', 'options.redirectStatus'],
      [
        { targets: [{ when: { country: ['Narnia'] }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.country',
      ],
      [{ targets: [{ when: { device: ['ios'] }, url: 'http://127.0.0.1/admin' }] }, 'URL_PRIVATE_ADDRESS', 'options.targets[0].url'],
      [
        {
          split: [
            { url: 'https://example.com/a', weight: 60 },
            { url: 'https://example.com/b', weight: 60 },
          ],
        },
        'SPLIT_INVALID',
        'options.split',
      ],
    ];
    for (const [options, code, field] of cases) {
      const res = await app.inject({
        method: 'POST',
        url: '/links',
        headers: { authorization: `Bearer ${admin}` },
        payload: { url: 'https://example.com/', alias: 'opt-refused', options },
      });
      assert.equal(res.statusCode, 400, JSON.stringify(options));
      const error = res.json().error;
      assert.equal(error.code, code);
      assert.equal(error.field, field);
      assert.ok(error.message.length > 10);
    }
    // The shape itself: an unknown option is the schema's error.
    const unknown = await app.inject({
      method: 'POST',
      url: '/links',
      payload: { url: 'https://example.com/', options: { colour: 'red' } },
    });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error.code, 'BODY_INVALID');
    assert.equal((await app.inject({ url: '/opt-refused' })).statusCode, 404);
  });

  test('PATCH replaces the options on every instance before it answers; null makes the link plain again', async (t) => {
    const [one, two] = [await instance(t), await instance(t)];
    const created = await createLink(one, { url: 'https://example.com/plain', alias: 'opt-patch' });
    assert.equal(created.status, 201);
    assert.equal(created.body.options, null);
    assert.deepEqual(await visit(two, '/opt-patch?x=1'), { status: 302, location: 'https://example.com/plain' });

    const patch = (options: unknown) =>
      one.inject({ method: 'PATCH', url: '/links/opt-patch', headers: { authorization: `Bearer ${admin}` }, payload: { options } });
    const changed = await patch({ redirectStatus: 308, forwardQuery: true });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().options, { redirectStatus: 308, forwardQuery: true });
    for (const app of [one, two])
      assert.deepEqual(await visit(app, '/opt-patch?x=1'), { status: 308, location: 'https://example.com/plain?x=1' });

    const refused = await patch({ targets: [{ when: {}, url: 'https://example.com/' }] });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.field, 'options.targets[0].when');

    const plain = await patch(null);
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.json().options, null);
    for (const app of [one, two])
      assert.deepEqual(await visit(app, '/opt-patch?x=1'), { status: 302, location: 'https://example.com/plain' });
  });

  test('bulk creates take options per item, each refused or created on its own', async (t) => {
    const app = await instance(t);
    const res = await app.inject({
      method: 'POST',
      url: '/links/bulk',
      headers: { authorization: `Bearer ${admin}` },
      payload: {
        links: [
          { url: 'https://example.com/b1', alias: 'opt-bulk-1', options: { redirectStatus: 301 } },
          { url: 'https://example.com/b2', alias: 'opt-bulk-2', options: { redirectStatus: 300 } },
        ],
      },
    });
    assert.equal(res.statusCode, 200);
    const { results } = res.json();
    assert.equal(results[0].status, 201);
    assert.deepEqual(results[0].link.options, { redirectStatus: 301 });
    assert.deepEqual(results[1], { index: 1, status: 400, error: { code: 'REDIRECT_STATUS_INVALID', message: results[1].error.message } });
    assert.deepEqual(await visit(app, '/opt-bulk-1'), { status: 301, location: 'https://example.com/b1' });
  });
});

describe('a social preview', () => {
  test('link-preview crawlers get the page of Open Graph tags (HEAD its head), people the redirect; not a click', async (t) => {
    const app = await instance(t, { CLICK_FLUSH_INTERVAL_MS: '3600000' });
    const options = {
      redirectStatus: 307,
      preview: { title: 'Spring sale', description: 'Half off, <today>', image: 'https://cdn.example/sale.png' },
    };
    const created = await createLink(app, { url: 'https://example.com/sale', alias: 'opt-preview', options });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    for (const crawler of [
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Twitterbot/1.0',
      'WhatsApp/2.23.20.0',
    ]) {
      const page = await app.inject({ url: '/opt-preview', headers: { 'user-agent': crawler } });
      assert.equal(page.statusCode, 200, crawler);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.match(String(page.headers['content-security-policy']), /^default-src 'none'/);
      assert.match(page.body, /<meta property="og:title" content="Spring sale">/);
      assert.match(page.body, /<meta property="og:description" content="Half off, &lt;today&gt;">/);
      assert.match(page.body, /<meta property="og:image" content="https:\/\/cdn\.example\/sale\.png">/);
      const head = await app.inject({ method: 'HEAD', url: '/opt-preview', headers: { 'user-agent': crawler } });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-length'], page.headers['content-length']);
    }
    assert.deepEqual(await visit(app, '/opt-preview', { 'user-agent': DESKTOP }), { status: 307, location: 'https://example.com/sale' });
    assert.deepEqual(await visit(app, '/opt-preview', { 'user-agent': IPHONE }), { status: 307, location: 'https://example.com/sale' });
    await app.clicks.flush();
    const details = await app.inject({ url: '/links/opt-preview', headers: { authorization: `Bearer ${admin}` } });
    assert.deepEqual([details.json().clicks, details.json().botClicks], [2, 0], 'the two redirects are clicks; the previews are not');
  });
});

describe('deep links', () => {
  test('iOS gets the app page, Android an intent falling back to the web target as the rules chose it, others the redirect; all are clicks', async (t) => {
    const app = await instance(t, { CLICK_FLUSH_INTERVAL_MS: '3600000' });
    const options = {
      forwardQuery: true,
      targets: [{ when: { language: ['de'] }, url: 'https://example.com/de' }],
      deepLink: { ios: 'myapp://open/42', android: 'myapp://open/42?from=link' },
    };
    assert.equal((await createLink(app, { url: 'https://example.com/web', alias: 'opt-app', options })).status, 201);
    const android = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';
    const onAndroid = await visit(app, '/opt-app?utm=sms', { 'user-agent': android, 'accept-language': 'de-DE' });
    assert.deepEqual(onAndroid, {
      status: 302,
      location: `intent://open/42?from=link#Intent;scheme=myapp;S.browser_fallback_url=${encodeURIComponent('https://example.com/de?utm=sms')};end`,
    });
    const page = await app.inject({ url: '/opt-app?utm=sms', headers: { 'user-agent': IPHONE } });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'sha256-/);
    assert.match(page.body, /<a id="app" href="myapp:\/\/open\/42">/);
    assert.match(page.body, /<a id="web" href="https:\/\/example\.com\/web\?utm=sms">/);
    assert.deepEqual(await visit(app, '/opt-app', { 'user-agent': DESKTOP }), { status: 302, location: 'https://example.com/web' });
    await app.clicks.flush();
    const details = await app.inject({ url: '/links/opt-app', headers: { authorization: `Bearer ${admin}` } });
    assert.equal(details.json().clicks, 3, 'the app page is a click, like the redirects');
    // Universal and app links are redirected to as they are.
    await app.inject({
      method: 'PATCH',
      url: '/links/opt-app',
      headers: { authorization: `Bearer ${admin}` },
      payload: { options: { deepLink: { ios: 'https://app.example/open/42' } } },
    });
    assert.deepEqual(await visit(app, '/opt-app', { 'user-agent': IPHONE }), { status: 302, location: 'https://app.example/open/42' });
  });
});

describe('a password-protected link', () => {
  test('the form until the right password; a pass for that link alone; attempts limited; PATCH keeps or changes it', async (t) => {
    const app = await instance(t, { CLICK_FLUSH_INTERVAL_MS: '3600000' });
    const headers = { authorization: `Bearer ${admin}` };
    const created = await createLink(app, { url: 'https://example.com/secret', alias: 'opt-pass', options: { password: 'open sesame' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.options, { password: true });
    assert.deepEqual((await app.inject({ url: '/links/opt-pass', headers })).json().options, { password: true });
    const stored = await withClient(database.url, (c) =>
      c.query<{ options: { passwordHash: string } }>("SELECT options FROM links WHERE code = 'opt-pass'"),
    );
    assert.match(stored.rows[0]?.options.passwordHash ?? '', /^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.ok(!JSON.stringify(stored.rows).includes('open sesame'));
    const refusedKeep = await createLink(app, { url: 'https://example.com/x', options: { password: true } });
    assert.equal(refusedKeep.status, 400);
    assert.equal((refusedKeep.body.error as { code: string }).code, 'PASSWORD_INVALID');
    assert.equal((await createLink(app, { url: 'https://example.com/x', options: { password: 'abc' } })).status, 400);

    const page = await app.inject({ url: '/opt-pass', headers: { 'user-agent': DESKTOP } });
    assert.equal(page.statusCode, 200);
    assert.match(
      String(page.headers['content-security-policy']),
      /^default-src 'none'; style-src 'sha256-[^']+'; form-action 'self' https: http:;/,
    );
    assert.match(page.body, /<label for="password">Password<\/label><input id="password" name="password" type="password"/);
    const post = (password: string, client = '203.0.113.7') =>
      app.inject({
        method: 'POST',
        url: '/opt-pass',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client },
        payload: new URLSearchParams({ password }).toString(),
      });
    const wrong = await post('open says me');
    assert.equal(wrong.statusCode, 403);
    assert.match(wrong.body, /aria-invalid="true" aria-describedby="password-error"/);
    assert.match(wrong.body, /That is not the password/);
    const right = await post('open sesame');
    assert.equal(right.statusCode, 303);
    assert.equal(right.headers.location, '/opt-pass');
    const setCookie = String(right.headers['set-cookie']);
    assert.match(setCookie, /^link-pass=\d+\.[\w-]+; Path=\/opt-pass; Max-Age=3600; HttpOnly; SameSite=Lax$/);
    const cookie = setCookie.split(';')[0] as string;
    assert.deepEqual(await visit(app, '/opt-pass', { cookie, 'user-agent': DESKTOP }), {
      status: 302,
      location: 'https://example.com/secret',
    });
    // Another link's page, with this pass: still the form.
    assert.equal(
      (await createLink(app, { url: 'https://example.com/other', alias: 'opt-pass-2', options: { password: 'other one' } })).status,
      201,
    );
    assert.equal((await app.inject({ url: '/opt-pass-2', headers: { cookie } })).statusCode, 200);
    // A forged or expired pass is no pass.
    const [expiry] = cookie.slice('link-pass='.length).split('.');
    assert.equal(
      (await app.inject({ url: '/opt-pass', headers: { cookie: `link-pass=${Number(expiry) + 1}.${cookie.split('.')[1]}` } })).statusCode,
      200,
    );

    // Attempts: ATTEMPTS_MAX wrong answers per client and link, then 429 whatever is sent.
    for (let i = 0; i < 5; i++) assert.equal((await post(`guess ${i}`, '198.51.100.99')).statusCode, 403);
    const limited = await post('open sesame', '198.51.100.99');
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.match(limited.body, /Too many wrong passwords/);
    assert.equal((await post('open sesame', '198.51.100.100')).statusCode, 303, 'another client is not held back');

    // PATCH: true keeps the password (and its passes); a new one voids them.
    const patch = (options: unknown) => app.inject({ method: 'PATCH', url: '/links/opt-pass', headers, payload: { options } });
    const kept = await patch({ password: true, redirectStatus: 307 });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.deepEqual(kept.json().options, { redirectStatus: 307, password: true });
    assert.deepEqual(await visit(app, '/opt-pass', { cookie }), { status: 307, location: 'https://example.com/secret' });
    assert.equal((await patch({ password: 'a new one' })).statusCode, 200);
    assert.equal((await app.inject({ url: '/opt-pass', headers: { cookie } })).statusCode, 200, 'the old pass is void');
    assert.equal((await patch(null)).statusCode, 200);
    assert.deepEqual(await visit(app, '/opt-pass'), { status: 302, location: 'https://example.com/secret' });
    // The two redirects behind a pass and the one after were clicks; the pages were not.
    await app.clicks.flush();
    assert.equal((await app.inject({ url: '/links/opt-pass', headers })).json().clicks, 3);
  });
});

describe('an A/B split', () => {
  test('keeps a visitor on one variant on every instance, and spreads visitors by the weights', async (t) => {
    const [one, two] = [await instance(t), await instance(t)];
    const created = await createLink(one, {
      url: 'https://example.com/control',
      alias: 'opt-split',
      options: {
        split: [
          { url: 'https://example.com/a', weight: 20 },
          { url: 'https://example.com/b', weight: 80 },
        ],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const counts = new Map<string, number>();
    const visitors = 400;
    for (let i = 0; i < visitors; i++) {
      const headers = { 'x-forwarded-for': `198.51.${i >> 8}.${i & 255}`, 'user-agent': DESKTOP };
      const first = await visit(one, '/opt-split', headers);
      assert.equal(first.status, 302);
      // The same visitor, again and on the other instance: the same variant.
      assert.deepEqual(await visit(two, '/opt-split', headers), first);
      assert.deepEqual(await visit(one, '/opt-split', headers), first);
      counts.set(first.location as string, (counts.get(first.location as string) ?? 0) + 1);
    }
    const a = counts.get('https://example.com/a') ?? 0;
    const b = counts.get('https://example.com/b') ?? 0;
    assert.equal(a + b, visitors, `only the variants: ${JSON.stringify([...counts])}`);
    // 20 % of 400 is 80; a binomial's standard deviation there is 8: five of them either way.
    assert.ok(a > 40 && a < 120, `variant a got ${a} of ${visitors}`);
  });
});

describe('stats per rule and variant', () => {
  test("a link's stats count each rule's and variant's clicks under `target`; a plain link and the workspace have none", async (t) => {
    const app = await instance(t, {
      ANALYTICS_ENABLED: 'true',
      CLICK_FLUSH_INTERVAL_MS: '3600000',
      ANALYTICS_FLUSH_INTERVAL_MS: '3600000',
    });
    const options = {
      targets: [{ when: { device: ['ios'] }, url: 'https://example.com/ios' }],
      split: [
        { url: 'https://example.com/a', weight: 50 },
        { url: 'https://example.com/b', weight: 50 },
      ],
    };
    assert.equal((await createLink(app, { url: 'https://example.com/s', alias: 'opt-stats', options })).status, 201);
    assert.equal((await createLink(app, { url: 'https://example.com/p', alias: 'opt-stats-plain' })).status, 201);
    const expected = new Map<string, number>();
    const count = (value: string) => expected.set(value, (expected.get(value) ?? 0) + 1);
    for (let i = 0; i < 3; i++) {
      assert.equal(
        (await visit(app, '/opt-stats', { 'user-agent': IPHONE, 'x-forwarded-for': `203.0.113.${i}` })).location,
        'https://example.com/ios',
      );
      count('rule 1');
    }
    for (let i = 0; i < 20; i++) {
      const { location } = await visit(app, '/opt-stats', { 'user-agent': DESKTOP, 'x-forwarded-for': `198.51.100.${i}` });
      count(location === 'https://example.com/a' ? 'variant A' : 'variant B');
      await visit(app, '/opt-stats-plain', { 'user-agent': DESKTOP, 'x-forwarded-for': `198.51.100.${i}` });
    }
    await app.clicks.flush();
    const headers = { authorization: `Bearer ${admin}` };
    const stats = await app.inject({ url: '/links/opt-stats/stats?dimensions=target,device', headers });
    assert.equal(stats.statusCode, 200, stats.body);
    const byValue = Object.fromEntries(
      (stats.json().dimensions.target as { value: string; clicks: number }[]).map(({ value, clicks }) => [value, clicks]),
    );
    assert.deepEqual(byValue, Object.fromEntries(expected));
    assert.ok((expected.get('variant A') ?? 0) > 0 && (expected.get('variant B') ?? 0) > 0, JSON.stringify([...expected]));
    const plain = await app.inject({ url: '/links/opt-stats-plain/stats?dimensions=target', headers });
    assert.deepEqual(plain.json().dimensions.target, []);
    const workspace = await app.inject({ url: '/stats?dimensions=all', headers });
    assert.equal(workspace.statusCode, 200, workspace.body);
    assert.equal(workspace.json().dimensions.target, undefined);
    assert.ok(Array.isArray(workspace.json().dimensions.device));
  });
});

describe('deployment defaults', () => {
  test('REDIRECT_STATUS and FORWARD_QUERY apply to links that do not choose; a link that chooses keeps its choice', async (t) => {
    const app = await instance(t, { REDIRECT_STATUS: '301', FORWARD_QUERY: 'true' });
    assert.equal((await createLink(app, { url: 'https://example.com/d1', alias: 'opt-default-1' })).status, 201);
    assert.equal(
      (
        await createLink(app, {
          url: 'https://example.com/d2',
          alias: 'opt-default-2',
          options: { redirectStatus: 302, forwardQuery: false },
        })
      ).status,
      201,
    );
    assert.deepEqual(await visit(app, '/opt-default-1?ref=qr'), { status: 301, location: 'https://example.com/d1?ref=qr' });
    assert.deepEqual(await visit(app, '/opt-default-2?ref=qr'), { status: 302, location: 'https://example.com/d2' });
    // The QR code's own query is not the visitor's.
    assert.deepEqual(await visit(app, '/opt-default-1?qr=1'), { status: 301, location: 'https://example.com/d1' });
  });

  test('a redirect with a status of its rules counts as a click', async (t) => {
    const app = await instance(t, { CLICK_FLUSH_INTERVAL_MS: '3600000' });
    assert.equal(
      (await createLink(app, { url: 'https://example.com/c', alias: 'opt-clicks', options: { redirectStatus: 308 } })).status,
      201,
    );
    for (let i = 0; i < 3; i++) assert.equal((await visit(app, '/opt-clicks', { 'user-agent': DESKTOP })).status, 308);
    await app.clicks.flush();
    const res = await app.inject({ url: '/links/opt-clicks', headers: { authorization: `Bearer ${admin}` } });
    assert.equal(res.json().clicks, 3);
  });
});
