// A workspace's settings over the API on a real Postgres (docs/settings.md): its brand (name,
// colour, a logo checked by its bytes), its default domain (which creates naming no domain use:
// one, in bulk, by import) and its session length (a session ends that many hours after it began),
// who may change them, the audit entry of each change, and the pure checks of brand.ts.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { checkBrandColor, checkBrandLogo, checkBrandName, imageTypeOf } from '../../src/people/brand.ts';
import { bearer, errorCode, errorOf, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { dataUrlOf, pngOf } from '../helpers/png.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let app: FastifyInstance;
let pool: pg.Pool;
const clean: (() => Promise<void>)[] = [];
let acme: { id: number; keys: Record<'admin' | 'member' | 'viewer', CreatedKey> };
let other: { id: number; keys: Record<'admin', CreatedKey> };

before(async () => {
  database = await createTestDatabase('workspace-settings');
  ({ app, pool } = await startApp({ after: (fn) => void clean.push(fn) }, database.url, { DOMAIN_VERIFICATION: 'true' }));
  acme = await workspaceWith(database.url, 'Acme', { admin: 'admin', member: 'member', viewer: 'viewer' });
  other = await workspaceWith(database.url, 'Other', { admin: 'admin' });
});
after(async () => {
  for (const fn of clean.toReversed()) await fn();
  await database.drop();
});

const patch = (key: CreatedKey, payload: Record<string, unknown>) =>
  app.inject({ method: 'PATCH', url: '/workspace', headers: bearer(key), payload });

interface Settings {
  name: string;
  brand: { name: string | null; color: string | null; logo: string | null };
  defaultDomain: string | null;
  sessionHours: number | null;
  defaults: { domain: string; sessionHours: number };
}

async function changed(key: CreatedKey, payload: Record<string, unknown>): Promise<Settings> {
  const res = await patch(key, payload);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Settings>();
}

function refused(res: { statusCode: number; json: () => unknown }, status: number, code: string, field: string) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  const error = errorOf(res) as { code: string; field?: string };
  assert.equal(error.code, code);
  assert.equal(error.field, field);
}

/** A domain of the workspace of `key`, verified (as the verifier would mark it) unless told not. */
async function domainOf(key: CreatedKey, host: string, verified = true): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/domains', headers: bearer(key), payload: { host } });
  assert.equal(res.statusCode, 201, res.body);
  if (verified) await pool.query("UPDATE domains SET verification_status = 'verified', verified_at = now() WHERE host = $1", [host]);
}

async function lastAudit(key: CreatedKey): Promise<{ action: string; before: Settings; after: Settings }> {
  const res = await app.inject({ url: '/audit?action=workspace.settings', headers: bearer(key) });
  assert.equal(res.statusCode, 200, res.body);
  const entry = res.json<{ entries: { action: string; before: Settings; after: Settings }[] }>().entries[0];
  assert.ok(entry !== undefined, 'an audit entry');
  return entry;
}

describe('brand.ts: the checks of a brand', () => {
  test('a colour is #rgb or #rrggbb in either case, kept as lowercase #rrggbb', () => {
    assert.deepEqual(checkBrandColor('#1A2b3C'), { ok: true, value: '#1a2b3c' });
    assert.deepEqual(checkBrandColor('#F0a'), { ok: true, value: '#ff00aa' });
    for (const bad of ['red', '#12345', '1a2b3c', '#ggg', '#1a2b3c4d'])
      assert.deepEqual(checkBrandColor(bad), { ok: false, code: 'BRAND_COLOR_INVALID' }, bad);
  });

  test('a name is 1 to 60 characters without control characters, trimmed', () => {
    assert.deepEqual(checkBrandName('  Acme  '), { ok: true, value: 'Acme' });
    for (const bad of ['', '   ', 'x'.repeat(61), 'a\u0007b']) assert.equal(checkBrandName(bad).ok, false, JSON.stringify(bad));
  });

  test('a logo is a PNG, JPEG or WebP by its bytes, whatever its data: URL claims; SVG never', () => {
    const png = pngOf(2, 2, [255, 0, 0]);
    assert.equal(imageTypeOf(png), 'image/png');
    assert.equal(imageTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
    assert.equal(imageTypeOf(Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1')), 'image/webp');
    const checked = checkBrandLogo(dataUrlOf(png, 'image/svg+xml'));
    assert.ok(checked.ok && checked.value.type === 'image/png' && checked.value.bytes.equals(png));
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    assert.deepEqual(checkBrandLogo(dataUrlOf(svg, 'image/png')), { ok: false, code: 'BRAND_LOGO_TYPE' });
    assert.deepEqual(checkBrandLogo('https://example.com/logo.png'), { ok: false, code: 'BRAND_LOGO_INVALID' });
    assert.deepEqual(checkBrandLogo('data:image/png;base64,%%%'), { ok: false, code: 'BRAND_LOGO_INVALID' });
  });
});

describe('GET and PATCH /workspace: the brand', () => {
  test('an admin sets the name, colour and logo; every member reads them; the logo comes back as it went', async () => {
    const logo = dataUrlOf(pngOf(16, 16, [10, 120, 200]));
    const set = await changed(acme.keys.admin, { brand: { name: ' Acme Links ', color: '#0A78C8', logo } });
    assert.deepEqual(set.brand, { name: 'Acme Links', color: '#0a78c8', logo });
    const read = await app.inject({ url: '/workspace', headers: bearer(acme.keys.viewer) });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json<Settings>().brand, set.brand);
    const stored = await pool.query('SELECT brand_logo_type, octet_length(brand_logo) AS bytes FROM workspaces WHERE id = $1', [acme.id]);
    assert.deepEqual(stored.rows[0], { brand_logo_type: 'image/png', bytes: pngOf(16, 16, [10, 120, 200]).length });

    // A part left out is kept; null removes one.
    const colourOnly = await changed(acme.keys.admin, { brand: { color: '#abc' } });
    assert.deepEqual(colourOnly.brand, { name: 'Acme Links', color: '#aabbcc', logo });
    const removed = await changed(acme.keys.admin, { brand: { logo: null } });
    assert.deepEqual(removed.brand, { name: 'Acme Links', color: '#aabbcc', logo: null });
  });

  test('the audit log has the change, with the logo by its type and size rather than its bytes', async () => {
    const png = pngOf(8, 8, [0, 0, 0]);
    await changed(acme.keys.admin, { brand: { logo: dataUrlOf(png) } });
    const entry = await lastAudit(acme.keys.admin);
    assert.equal(entry.action, 'workspace.settings');
    assert.equal(entry.before.brand.logo, null);
    assert.deepEqual(entry.after.brand.logo, { type: 'image/png', bytes: png.length });
  });

  test('each wrong value is a 400 with its own code on its field, and changes nothing', async () => {
    const unchanged = (await app.inject({ url: '/workspace', headers: bearer(acme.keys.admin) })).json<Settings>();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');
    const large = pngOf(120, 120, [0, 0, 0], true);
    assert.ok(large.length > 32 * 1024, `${large.length} bytes`);
    refused(await patch(acme.keys.admin, { brand: { name: '' } }), 400, 'BRAND_NAME_INVALID', 'brand.name');
    refused(await patch(acme.keys.admin, { brand: { name: 'x'.repeat(61) } }), 400, 'BRAND_NAME_INVALID', 'brand.name');
    refused(await patch(acme.keys.admin, { brand: { color: 'blue' } }), 400, 'BRAND_COLOR_INVALID', 'brand.color');
    refused(await patch(acme.keys.admin, { brand: { logo: dataUrlOf(svg, 'image/svg+xml') } }), 400, 'BRAND_LOGO_TYPE', 'brand.logo');
    refused(await patch(acme.keys.admin, { brand: { logo: dataUrlOf(large) } }), 400, 'BRAND_LOGO_TOO_LARGE', 'brand.logo');
    refused(await patch(acme.keys.admin, { brand: { logo: 'logo.png' } }), 400, 'BRAND_LOGO_INVALID', 'brand.logo');
    refused(await patch(acme.keys.admin, { sessionHours: 0 }), 400, 'SESSION_HOURS_INVALID', 'sessionHours');
    refused(await patch(acme.keys.admin, { sessionHours: 8761 }), 400, 'SESSION_HOURS_INVALID', 'sessionHours');
    assert.deepEqual((await app.inject({ url: '/workspace', headers: bearer(acme.keys.admin) })).json<Settings>(), unchanged);
  });

  test('members and viewers read the settings but may not change them', async () => {
    for (const key of [acme.keys.member, acme.keys.viewer]) {
      const res = await patch(key, { brand: { color: '#000000' } });
      assert.equal(res.statusCode, 403);
      assert.equal(errorCode(res), 'ROLE_FORBIDDEN');
    }
  });
});

describe('the default domain', () => {
  test("only a verified domain of the workspace: an unknown host or another workspace's is a 400, a pending one a 409", async () => {
    await domainOf(other.keys.admin, 'go.other.example');
    await domainOf(acme.keys.admin, 'pending.acme.example', false);
    refused(await patch(acme.keys.admin, { defaultDomain: 'go.other.example' }), 400, 'DEFAULT_DOMAIN_UNKNOWN', 'defaultDomain');
    refused(await patch(acme.keys.admin, { defaultDomain: 'nowhere.example' }), 400, 'DEFAULT_DOMAIN_UNKNOWN', 'defaultDomain');
    refused(await patch(acme.keys.admin, { defaultDomain: 'pending.acme.example' }), 409, 'DOMAIN_NOT_VERIFIED', 'defaultDomain');
  });

  test('a create that names no domain goes on it: one, in bulk and by import; one that names a domain keeps it', async () => {
    await domainOf(acme.keys.admin, 'go.acme.example');
    const set = await changed(acme.keys.admin, { defaultDomain: 'GO.acme.example' });
    assert.equal(set.defaultDomain, 'go.acme.example');
    assert.equal((await lastAudit(acme.keys.admin)).after.defaultDomain, 'go.acme.example');

    const headers = bearer(acme.keys.member);
    const one = await app.inject({ method: 'POST', url: '/links', headers, payload: { url: 'https://example.com/one' } });
    assert.equal(one.statusCode, 201, one.body);
    assert.equal(one.json<{ domain: string }>().domain, 'go.acme.example');
    const named = await app.inject({ method: 'POST', url: '/links', headers, payload: { url: 'https://example.com/n', domain: 'sho.rt' } });
    assert.equal(named.json<{ domain: string }>().domain, 'sho.rt');
    const bulk = await app.inject({ method: 'POST', url: '/links/bulk', headers, payload: { links: [{ url: 'https://example.com/b' }] } });
    assert.equal(bulk.statusCode, 200, bulk.body);
    assert.equal(bulk.json<{ results: { link: { domain: string } }[] }>().results[0]?.link.domain, 'go.acme.example');
    const imported = await app.inject({
      method: 'POST',
      url: '/links/import',
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: 'url\nhttps://example.com/imported\n',
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const row = await pool.query<{ host: string }>(
      "SELECT d.host FROM links l JOIN domains d ON d.id = l.domain_id WHERE l.url = 'https://example.com/imported'",
    );
    assert.equal(row.rows[0]?.host, 'go.acme.example');

    // Another workspace's creates are not touched; null goes back to the deployment's.
    const theirs = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(other.keys.admin),
      payload: { url: 'https://example.com/o' },
    });
    assert.equal(theirs.json<{ domain: string }>().domain, 'sho.rt');
    assert.equal((await changed(acme.keys.admin, { defaultDomain: null })).defaultDomain, null);
    const back = await app.inject({ method: 'POST', url: '/links', headers, payload: { url: 'https://example.com/back' } });
    assert.equal(back.json<{ domain: string }>().domain, 'sho.rt');
  });
});

describe('the session length', () => {
  async function signIn(key: CreatedKey): Promise<{ cookie: string; expiresAt: string }> {
    const res = await app.inject({ method: 'POST', url: '/auth/session', payload: { key: key.secret } });
    assert.equal(res.statusCode, 200, res.body);
    return { cookie: String(res.headers['set-cookie']).split(';')[0] ?? '', expiresAt: res.json<{ expiresAt: string }>().expiresAt };
  }
  const ageSessions = (hours: number) =>
    pool.query(
      `UPDATE sessions SET created_at = created_at - $2 * interval '1 hour'
       WHERE key_id IN (SELECT id FROM api_keys WHERE workspace_id = $1)`,
      [acme.id, hours],
    );

  test('a session in a workspace with sessionHours ends that many hours after it began', async () => {
    const set = await changed(acme.keys.admin, { sessionHours: 2 });
    assert.equal(set.sessionHours, 2);
    assert.equal(set.defaults.sessionHours, 12);
    const session = await signIn(acme.keys.viewer);
    assert.ok(Date.parse(session.expiresAt) - Date.now() <= 2 * 3_600_000, `opened to end by ${session.expiresAt}`);
    const theirs = await signIn(other.keys.admin);

    // Begun 1 h ago: still good. Begun 2 h 1 min ago: ended (the other workspace's, as old, is not).
    await ageSessions(1);
    assert.equal((await app.inject({ url: '/auth/session', headers: { cookie: session.cookie } })).statusCode, 200);
    await ageSessions(1.02);
    app.auth.credentials.forgetAll();
    const ended = await app.inject({ url: '/auth/session', headers: { cookie: session.cookie } });
    assert.equal(ended.statusCode, 401);
    assert.equal(errorCode(ended), 'SESSION_EXPIRED');
    await pool.query(`UPDATE sessions SET created_at = created_at - interval '3 hours' WHERE key_id = $1`, [other.keys.admin.id]);
    assert.equal((await app.inject({ url: '/auth/session', headers: { cookie: theirs.cookie } })).statusCode, 200);
  });

  test('lowering it ends sessions older than the new length at once; null goes back to SESSION_TTL_HOURS', async () => {
    await changed(acme.keys.admin, { sessionHours: null });
    const session = await signIn(acme.keys.member);
    await ageSessions(5);
    assert.equal((await app.inject({ url: '/auth/session', headers: { cookie: session.cookie } })).statusCode, 200);
    await changed(acme.keys.admin, { sessionHours: 4 });
    const ended = await app.inject({ url: '/auth/session', headers: { cookie: session.cookie } });
    assert.equal(errorCode(ended), 'SESSION_EXPIRED');
  });
});
