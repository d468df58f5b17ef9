// A browser opening a link that does not redirect gets a page for people, an API client the JSON
// error, over real sockets on both transports (the fast path and node:http): the same status, both
// marked as varying by Accept. A domain's fallbacks still win, whatever Accept says, and a
// workspace's brand shows on its domains' pages (and the password form) once the host table is read again.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createLink, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
/** A 1x1 PNG. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const FALLBACK_HOST = 'fall.example.com';

/** Each dead state, the path that answers it on the default domain, its status and its page's heading. */
const STATES = [
  ['LINK_NOT_FOUND', '/no-such-link', 404, "This link doesn't exist"],
  ['LINK_EXPIRED', '/dead-exp', 410, 'This link has expired'],
  ['LINK_DISABLED', '/dead-off', 410, 'This link has been turned off'],
  ['LINK_CLICK_LIMIT_REACHED', '/used-up', 410, 'This link has been used up'],
  ['LINK_NOT_YET_ACTIVE', '/dead-soon', 404, "This link isn't active yet"],
] as const;

let database: TestDatabase;
/** One app on each transport, for the whole file. */
const apps = new Map<string, FastifyInstance>();
const cleanups: (() => Promise<void>)[] = [];
const fileScope: Cleanup = { after: (fn) => cleanups.push(fn) };
before(async () => {
  database = await createTestDatabase('visitor_pages');
  await withClient(database.url, async (client) => {
    await client.query(`INSERT INTO links (code, url, expires_at) VALUES ('dead-exp', 'https://example.com/x', now() - interval '1 day')`);
    await client.query(`INSERT INTO links (code, url, disabled) VALUES ('dead-off', 'https://example.com/x', true)`);
    await client.query(`INSERT INTO links (code, url, starts_at) VALUES ('dead-soon', 'https://example.com/x', now() + interval '1 day')`);
    const domain = await client.query<{ id: string }>(
      `INSERT INTO domains (workspace_id, host, not_found_redirect, expired_redirect) VALUES (1, $1, 'https://acme.example/404', 'https://acme.example/gone') RETURNING id`,
      [FALLBACK_HOST],
    );
    await client.query(`INSERT INTO links (domain_id, code, url, disabled) VALUES ($1, 'dead-off', 'https://example.com/x', true)`, [
      domain.rows[0]?.id,
    ]);
    await client.query(
      `INSERT INTO links (domain_id, code, url, starts_at) VALUES ($1, 'dead-soon', 'https://example.com/x', now() + interval '1 day')`,
      [domain.rows[0]?.id],
    );
  });
  for (const fastPath of ['true', 'false'])
    apps.set(fastPath, (await startApp(fileScope, database.url, { FAST_PATH: fastPath, DOMAIN_VERIFICATION: 'false' })).app);
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

const appOf = (fastPath: string) => apps.get(fastPath) as FastifyInstance;

const get = (app: FastifyInstance, url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
  app.inject({ method, url, headers });

let usedUp = false;
/** A link with a click limit of one, its one click given. */
async function useUp(app: FastifyInstance): Promise<void> {
  if (usedUp) return;
  usedUp = true;
  assert.equal((await createLink(app, { url: 'https://example.com/once', alias: 'used-up', options: { clickLimit: 1 } })).status, 201);
  assert.equal((await get(app, '/used-up', { accept: BROWSER })).statusCode, 302);
}

for (const fastPath of ['true', 'false']) {
  test(`FAST_PATH=${fastPath}: a browser gets each dead link's page, an API client its JSON, both varying by Accept`, async () => {
    const app = appOf(fastPath);
    await useUp(app);
    for (const [code, path, status, heading] of STATES) {
      const page = await get(app, path, { accept: BROWSER });
      assert.equal(page.statusCode, status, `${code}: page status`);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8', code);
      assert.equal(page.headers.vary, 'accept', code);
      assert.equal(page.headers['cache-control'], 'no-store', code);
      assert.equal(page.headers['x-content-type-options'], 'nosniff', code);
      assert.equal(page.headers['referrer-policy'], 'no-referrer', code);
      assert.match(String(page.headers['content-security-policy']), /^default-src 'none'; style-src 'sha256-/, code);
      assert.ok(page.body.includes(`<h1>${heading}</h1>`), code);
      assert.ok(page.body.includes('<span class="host">sho.rt</span>'), code);
      assert.ok(!page.body.includes('<script'), code);
      // HEAD: the same head, no body.
      const head = await get(app, path, { accept: BROWSER }, 'HEAD');
      assert.equal(head.statusCode, status, code);
      assert.equal(head.headers['content-length'], page.headers['content-length'], code);
      assert.equal(head.headers['content-type'], 'text/html; charset=utf-8', code);
      assert.equal(head.body, '', code);
      for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
        const json = await get(app, path, accept === undefined ? {} : { accept });
        assert.equal(json.statusCode, status, `${code}, Accept ${accept}`);
        assert.equal(json.headers['content-type'], 'application/json; charset=utf-8', `${code}, Accept ${accept}`);
        assert.equal(json.headers.vary, 'accept', `${code}, Accept ${accept}`);
        assert.equal(json.json<{ error: { code: string } }>().error.code, code, `${code}, Accept ${accept}`);
      }
    }
    // A live link is a redirect, whatever Accept says.
    assert.equal((await createLink(app, { url: 'https://example.com/live', alias: `live-${fastPath}` })).status, 201);
    const live = await get(app, `/live-${fastPath}`, { accept: BROWSER });
    assert.equal(live.statusCode, 302);
    assert.equal(live.headers.vary, undefined);
  });
}

test("a domain's fallbacks win over the page, whatever Accept says; its other answers are pages of its own host", async () => {
  const app = appOf('true');
  for (const accept of [BROWSER, 'application/json']) {
    const unknown = await get(app, '/no-such-link', { accept, host: FALLBACK_HOST });
    assert.equal(unknown.statusCode, 302);
    assert.equal(unknown.headers.location, 'https://acme.example/404');
    const off = await get(app, '/dead-off', { accept, host: FALLBACK_HOST });
    assert.equal(off.statusCode, 302);
    assert.equal(off.headers.location, 'https://acme.example/gone');
    // Not live yet is a 404 to visitors: the not-found fallback, not the expired one.
    const soon = await get(app, '/dead-soon', { accept, host: FALLBACK_HOST });
    assert.equal(soon.statusCode, 302);
    assert.equal(soon.headers.location, 'https://acme.example/404');
  }
  const page = app.hosts.byHost(FALLBACK_HOST)?.pages.get('LINK_DISABLED');
  assert.ok(page?.body.includes(`<span class="host">${FALLBACK_HOST}</span>`));
});

test("a workspace's brand, written to Postgres, is on its domains' pages and password form after hosts.refresh()", async (t) => {
  const app = appOf('true');
  assert.equal(
    (await createLink(app, { url: 'https://example.com/secret', alias: 'locked', options: { password: 'open sesame' } })).status,
    201,
  );
  const unbranded = await get(app, '/dead-exp', { accept: BROWSER });
  assert.ok(!unbranded.body.includes('class="brand'));
  await withClient(database.url, (client) =>
    client.query(
      `UPDATE workspaces SET brand_name = '<script>alert(1)</script>', brand_color = '#ffcc00', brand_logo = decode($1, 'base64'), brand_logo_type = 'image/png' WHERE id = 1`,
      [PIXEL],
    ),
  );
  t.after(() =>
    withClient(database.url, (client) =>
      client.query('UPDATE workspaces SET brand_name = NULL, brand_color = NULL, brand_logo = NULL, brand_logo_type = NULL WHERE id = 1'),
    ),
  );
  await app.hosts.refresh();
  const page = await get(app, '/dead-exp', { accept: BROWSER });
  assert.equal(page.statusCode, 410);
  assert.ok(page.body.includes('<span>&lt;script&gt;alert(1)&lt;/script&gt;</span>'));
  assert.ok(!page.body.includes('<script>'));
  assert.ok(page.body.includes(`<img src="data:image/png;base64,${PIXEL}" alt="">`));
  assert.ok(page.body.includes('.accent{color:#000000;background:#ffcc00}'));
  assert.match(String(page.headers['content-security-policy']), /; img-src data:; /);
  // The default domain wears workspace 1's brand, and so does workspace 1's own domain.
  assert.ok(app.hosts.byHost(FALLBACK_HOST)?.pages.get('LINK_NOT_FOUND')?.body.includes('&lt;script&gt;'));
  const form = await get(app, '/locked', { accept: BROWSER });
  assert.equal(form.statusCode, 200);
  assert.ok(form.body.includes('<header class="brand accent">'));
  assert.ok(form.body.includes('<button type="submit" class="accent">Continue</button>'));
  // A wrong password gets the form again, branded as well.
  const wrong = await app.inject({
    method: 'POST',
    url: '/locked',
    headers: { accept: BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'password=not+it',
  });
  assert.equal(wrong.statusCode, 403);
  assert.ok(wrong.body.includes('<header class="brand accent">'), 'the refusal keeps the brand');
  // Read again unchanged, the pages are the ones built before.
  const pages = app.hosts.defaultDomain.pages;
  await app.hosts.refresh();
  assert.equal(app.hosts.defaultDomain.pages, pages);
});
