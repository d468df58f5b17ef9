// The audit log: each change to domains, webhooks and links (and each export) is in GET /audit with
// its actor, before and after (never a secret) and the address truncated; filters and keyset pages
// give every entry once; the CSV export is formula-safe; admins alone read it; retention drops what
// is past each workspace's days and nothing else; and an entry is written with its change or not at
// all: a change refused leaves none, and an entry that cannot be written undoes the change.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { createApiKey, type CreatedKey } from '../../src/auth/api-keys.ts';
import { auditJson, recordAudit, truncatedAddress, withoutSecrets, type Actor } from '../../src/audit/audit.ts';
import { dropExpiredAudit, RETENTION_BATCH } from '../../src/audit/store.ts';
import { bearer, errorCode, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('audit');
});
after(() => database.drop());

interface Entry {
  id: number;
  at: string;
  actor: { personId: number | null; keyId: number | null; name: string | null } | null;
  action: string;
  target: { type: string; id: string | null };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  address: string | null;
}

const FROM = '203.0.113.77';

/** DOMAIN_VERIFICATION=false: a domain is served once added, and a check asked for passes without DNS. */
async function start(t: Cleanup): Promise<FastifyInstance> {
  return (await startApp(t, database.url, { DOMAIN_VERIFICATION: 'false' })).app;
}

let workspaces = 0;
/** A workspace of its own (its log starts empty), with an admin and a member. */
async function workspace(name = `audit-${++workspaces}`) {
  return workspaceWith(database.url, name, { admin: 'admin', member: 'member' });
}

function caller(app: FastifyInstance, key: CreatedKey, remoteAddress = FROM) {
  return (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url, headers: bearer(key), remoteAddress, ...(payload === undefined ? {} : { payload }) });
}

async function auditOf(app: FastifyInstance, key: CreatedKey, query = ''): Promise<{ entries: Entry[]; nextCursor: string | null }> {
  const res = await app.inject({ url: `/audit${query}`, headers: bearer(key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

test('each change of domains, webhooks and links, and each export, is in GET /audit: actor, before and after, address', async (t) => {
  const app = await start(t);
  const { keys } = await workspace();
  const as = caller(app, keys.admin);
  const host = 'go.audit-one.example';
  assert.equal((await as('POST', '/domains', { host, rootRedirect: 'https://one.example/' })).statusCode, 201);
  assert.equal((await as('PATCH', `/domains/${host}`, { notFoundRedirect: 'https://one.example/404' })).statusCode, 200);
  assert.equal((await as('POST', `/domains/${host}/verify`)).statusCode, 200);
  const hook = await as('POST', '/webhooks', { url: 'https://hooks.example.com/in', events: ['link.created'] });
  const { id: hookId, secret } = hook.json<{ id: number; secret: string }>();
  assert.equal((await as('PATCH', `/webhooks/${hookId}`, { enabled: false })).statusCode, 200);
  assert.equal((await as('POST', `/webhooks/${hookId}/secret`)).statusCode, 200);
  assert.equal((await as('DELETE', `/webhooks/${hookId}`)).statusCode, 204);
  assert.equal((await as('POST', '/links', { url: 'https://one.example/a', alias: 'audit-one', domain: host })).statusCode, 201);
  const patch = { url: 'https://one.example/b', title: 'B', options: { password: 'open sesame 7' } };
  assert.equal((await as('PATCH', `/links/audit-one?domain=${host}`, patch)).statusCode, 200);
  assert.equal((await as('DELETE', `/links/audit-one?domain=${host}`)).statusCode, 204);
  assert.equal((await as('GET', '/links/export.csv?state=active')).statusCode, 200);
  // Over IPv6 now: the /48 is kept.
  const v6 = caller(app, keys.admin, '2001:db8:1:2::5');
  assert.equal((await v6('DELETE', `/domains/${host}`)).statusCode, 204);

  const { entries, nextCursor } = await auditOf(app, keys.admin);
  assert.equal(nextCursor, null);
  const actions = entries.map((entry) => entry.action).toReversed();
  assert.deepEqual(actions, [
    'domain.add',
    'domain.update',
    'domain.verify',
    'webhook.create',
    'webhook.update',
    'webhook.secret-rotate',
    'webhook.delete',
    'link.update',
    'link.delete',
    'links.export',
    'domain.remove',
  ]);
  for (const entry of entries) {
    assert.deepEqual(entry.actor, { personId: null, keyId: keys.admin.id, name: 'admin' });
    assert.equal(entry.address, entry.action === 'domain.remove' ? '2001:db8:1::' : '203.0.113.0');
  }
  const find = (action: string) => entries.find((entry) => entry.action === action) as Entry;
  assert.deepEqual(find('domain.add').target, { type: 'domain', id: host });
  assert.equal(find('domain.add').after?.rootRedirect, 'https://one.example/');
  assert.deepEqual(find('domain.update').before, { notFoundRedirect: null });
  assert.deepEqual(find('domain.update').after, { notFoundRedirect: 'https://one.example/404' });
  assert.deepEqual(find('webhook.create').after, {
    url: 'https://hooks.example.com/in',
    description: '',
    events: ['link.created'],
    enabled: true,
  });
  assert.deepEqual([find('webhook.update').before, find('webhook.update').after], [{ enabled: true }, { enabled: false }]);
  assert.deepEqual(find('webhook.delete').target, { type: 'webhook', id: String(hookId) });
  const update = find('link.update');
  assert.deepEqual(update.target, { type: 'link', id: `${host}/audit-one` });
  assert.deepEqual(update.before, { url: 'https://one.example/a', title: null, options: null });
  assert.deepEqual(update.after, { url: 'https://one.example/b', title: 'B', options: { password: true } });
  assert.equal(find('link.delete').before?.url, 'https://one.example/b');
  assert.equal(find('link.delete').after, null);
  assert.deepEqual(find('links.export').after, { state: 'active' });
  // Never a secret: not the webhook's, not the link's password or its hash.
  const text = JSON.stringify(entries);
  for (const secretText of [secret, 'whsec_', 'open sesame', 'passwordHash', 'scrypt']) assert.ok(!text.includes(secretText), secretText);
});

test('filters and keyset pages: every entry once, newest first; a bad query is a coded 400', async (t) => {
  const app = await start(t);
  const { id: workspaceId, keys } = await workspace();
  const other = await workspace();
  const ada: Actor = { personId: 42, keyId: null, name: 'Ada', address: '198.51.100.0' };
  const byKey: Actor = { personId: null, keyId: keys.member.id, name: 'member', address: null };
  const ids: number[] = [];
  // Days from ten days ago: within any retention.
  const day = (n: number) => new Date(Math.floor(Date.now() / 86_400_000 - 10 + n) * 86_400_000).toISOString();
  await withClient(database.url, async (client) => {
    const made = [
      [ada, 'member.invite', 'invitation', 1],
      [ada, 'member.role', 'person', 7],
      [byKey, 'link.update', 'link', 'spring'],
      [byKey, 'link.update', 'link', 'autumn'],
      [ada, 'member.remove', 'person', 7],
      [byKey, 'link.delete', 'link', 'spring'],
      [ada, 'domain.add', 'domain', 'go.example.com'],
    ] as const;
    for (const [i, [actor, action, targetType, targetId]] of made.entries()) {
      await recordAudit(client, actor, { workspaceId, action, targetType, targetId });
      const { rows } = await client.query<{ id: string }>(
        'UPDATE audit_log SET at = $2 WHERE id = (SELECT max(id) FROM audit_log WHERE workspace_id = $1) RETURNING id',
        [workspaceId, day(i)],
      );
      ids.push(Number(rows[0]?.id));
    }
    await recordAudit(client, ada, { workspaceId: other.id, action: 'member.invite', targetType: 'invitation', targetId: 2 });
  });

  const walk = async (query: string): Promise<number[]> => {
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await auditOf(app, keys.admin, `?limit=2&${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
      assert.ok(page.entries.length <= 2);
      seen.push(...page.entries.map((entry) => entry.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    return seen;
  };
  const newestFirst = ids.toReversed();
  assert.deepEqual(await walk(''), newestFirst);
  const only = (...at: number[]) => newestFirst.filter((id) => at.map((i) => ids[i]).includes(id));
  assert.deepEqual(await walk('action=link.update'), only(2, 3));
  assert.deepEqual(await walk('action=member.*'), only(0, 1, 4));
  assert.deepEqual(await walk('actor=42'), only(0, 1, 4, 6));
  assert.deepEqual(await walk(`actor=key:${keys.member.id}`), only(2, 3, 5));
  assert.deepEqual(await walk('target=link'), only(2, 3, 5));
  assert.deepEqual(await walk('target=link:spring'), only(2, 5));
  assert.deepEqual(await walk('target=person:7&action=member.*'), only(1, 4));
  const plusZero = (iso: string) => encodeURIComponent(iso.replace('Z', '+00:00'));
  assert.deepEqual(await walk(`from=${day(1)}&to=${plusZero(day(4))}`), only(1, 2, 3));

  for (const query of [
    'limit=0',
    'limit=201',
    'limit=x',
    'actor=ada',
    'action=Link.update',
    'target=:x',
    'from=yesterday',
    'to=2026-03-01',
    'nope=1',
  ]) {
    const res = await app.inject({ url: `/audit?${query}`, headers: bearer(keys.admin) });
    assert.equal(res.statusCode, 400, query);
    assert.equal(errorCode(res), 'AUDIT_QUERY_INVALID', query);
  }
  for (const cursor of ['!!', 'eA', Buffer.from('-1').toString('base64url')]) {
    const res = await app.inject({ url: `/audit?cursor=${cursor}`, headers: bearer(keys.admin) });
    assert.equal(errorCode(res), 'CURSOR_INVALID', cursor);
  }
});

test('the CSV export: the filtered log as a file, each cell that would be a formula written after a quote, and itself recorded', async (t) => {
  const app = await start(t);
  const { id: workspaceId, keys } = await workspace();
  const tricky = await withClient(database.url, (client) =>
    createApiKey(client, { name: '=HYPERLINK("http://x")', role: 'admin', workspaceId }),
  );
  await caller(app, tricky)('POST', '/webhooks', {
    url: 'https://hooks.example.com/csv',
    events: ['link.created'],
    description: '@SUM(1)',
  });

  const res = await app.inject({ url: '/audit/export?action=webhook.*', headers: bearer(keys.admin), remoteAddress: FROM });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  assert.match(String(res.headers['content-disposition']), /^attachment; filename="audit-\d{4}-\d{2}-\d{2}\.csv"$/);
  const rows = parse<Record<string, string>>(res.body, { columns: true });
  assert.equal(rows.length, 1);
  const [row] = rows as [Record<string, string>];
  assert.equal(row.actor_name, `'=HYPERLINK("http://x")`);
  assert.equal(row.actor_key_id, String(tricky.id));
  assert.equal(row.action, 'webhook.create');
  assert.equal(row.address, '203.0.113.0');
  assert.deepEqual(JSON.parse(row.after as string), {
    url: 'https://hooks.example.com/csv',
    description: '@SUM(1)',
    events: ['link.created'],
    enabled: true,
  });
  const { entries } = await auditOf(app, keys.admin, '?action=audit.export');
  assert.deepEqual(
    entries.map((entry) => [entry.actor?.keyId, entry.after]),
    [[keys.admin.id, { action: 'webhook.*' }]],
  );
});

test('only admins read the log: 403 for a member, 401 without a key', async (t) => {
  const app = await start(t);
  const { keys } = await workspace();
  for (const url of ['/audit', '/audit/export']) {
    assert.equal(errorCode(await app.inject({ url, headers: bearer(keys.member) })), 'ROLE_FORBIDDEN');
    assert.equal((await app.inject({ url })).statusCode, 401);
  }
});

test("retention drops each workspace's entries past its days, in batches, and keeps the rest; the app drops them at start", async (t) => {
  const short = await workspace();
  const long = await workspace();
  const actor: Actor = { personId: null, keyId: null, name: null, address: null };
  const count = async (where: string, values: unknown[] = []) =>
    withClient(database.url, async (client) =>
      Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM audit_log WHERE ${where}`, values)).rows[0]?.n),
    );
  await withClient(database.url, async (client) => {
    await client.query('UPDATE workspaces SET audit_retention_days = 30 WHERE id = $1', [short.id]);
    // More than a batch of old entries in one workspace.
    await client.query(
      `INSERT INTO audit_log (workspace_id, action, target_type, at) SELECT $1, 'old', 'x', now() - interval '40 days' FROM generate_series(1, $2)`,
      [short.id, RETENTION_BATCH + 5],
    );
    for (const [workspaceId, action, daysAgo] of [
      [short.id, 'new', 20],
      [long.id, 'kept', 40],
      [long.id, 'old', 400],
      [null, 'kept', 40],
      [null, 'old', 400],
    ] as const) {
      await recordAudit(client, actor, { workspaceId, action, targetType: 'x', targetId: null });
      await client.query("UPDATE audit_log SET at = now() - $1 * interval '1 day' WHERE id = (SELECT max(id) FROM audit_log)", [daysAgo]);
    }
  });
  const scope = 'workspace_id IN ($1, $2) OR workspace_id IS NULL';
  await withClient(database.url, async (client) => {
    assert.equal(await dropExpiredAudit(client), RETENTION_BATCH + 5 + 2);
  });
  assert.equal(await count(`(${scope}) AND action = 'old'`, [short.id, long.id]), 0);
  assert.equal(await count(`(${scope}) AND action <> 'old'`, [short.id, long.id]), 3);

  // The app's own round at start (then hourly): a run of the retention part.
  await withClient(database.url, (client) =>
    client.query("UPDATE audit_log SET at = now() - interval '31 days' WHERE workspace_id = $1", [short.id]),
  );
  await start(t);
  assert.equal(await count('workspace_id = $1', [short.id]), 0);
  assert.equal(await count('workspace_id = $1', [long.id]), 1);
});

test('an entry is written with its change or not at all', async (t) => {
  const app = await start(t);
  const { keys } = await workspace();
  const as = caller(app, keys.admin);
  const host = 'go.audit-busy.example';
  assert.equal((await as('POST', '/domains', { host })).statusCode, 201);
  assert.equal((await as('POST', '/links', { url: 'https://busy.example/', alias: 'busy', domain: host })).statusCode, 201);
  // Refused while a link is on it: no domain.remove.
  const refused = await as('DELETE', `/domains/${host}`);
  assert.equal(errorCode(refused), 'DOMAIN_IN_USE');
  assert.deepEqual((await auditOf(app, keys.admin, '?action=domain.remove')).entries, []);

  // An entry the log refuses undoes its change: the link keeps its target, the domain stays.
  await withClient(database.url, (client) =>
    client.query(
      "ALTER TABLE audit_log ADD CONSTRAINT audit_test_refuses CHECK (action NOT IN ('link.update', 'domain.remove')) NOT VALID",
    ),
  );
  try {
    assert.notEqual((await as('PATCH', `/links/busy?domain=${host}`, { url: 'https://busy.example/changed' })).statusCode, 200);
    assert.notEqual((await as('DELETE', `/domains/${host}?moveLinksTo=sho.rt`)).statusCode, 204);
  } finally {
    await withClient(database.url, (client) => client.query('ALTER TABLE audit_log DROP CONSTRAINT audit_test_refuses'));
  }
  const link = await as('GET', `/links/busy?domain=${host}`);
  assert.equal(link.json<{ url: string }>().url, 'https://busy.example/');
  assert.equal((await as('GET', '/domains')).json<{ domains: { host: string }[] }>().domains.filter((d) => d.host === host).length, 1);
});

test('addresses are truncated to /24 and /48; secrets are dropped at any depth; a large snapshot is cut', () => {
  assert.equal(truncatedAddress('203.0.113.77'), '203.0.113.0');
  assert.equal(truncatedAddress('::ffff:198.51.100.9'), '198.51.100.0');
  assert.equal(truncatedAddress('2001:db8:1:2:3:4:5:6'), '2001:db8:1::');
  assert.equal(truncatedAddress('2001:DB8::1'), '2001:db8::');
  assert.equal(truncatedAddress('fe80::1%eth0'), 'fe80::');
  assert.equal(truncatedAddress('::1'), '::');
  assert.equal(truncatedAddress('not an address'), '');
  const cleaned = withoutSecrets({
    name: 'k',
    password: 'p',
    passwordHash: 'h',
    csrf_token: 't',
    key: 'sk_abc',
    nested: [{ signingSecret: 's', keep: 1, options: { passTag: 'x', redirect: 'y' } }],
  });
  assert.deepEqual(cleaned, { name: 'k', nested: [{ keep: 1, options: { redirect: 'y' } }] });
  assert.equal(auditJson({ text: 'x'.repeat(9000) }), '{"truncated": true}');
  assert.equal(auditJson(null), null);
});
