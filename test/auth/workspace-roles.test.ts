// Who may do what: every route the OpenAPI document marks as acting for a key, by every kind of
// caller (no key, a bad key, an admin, the member that created the link, another member, a viewer,
// an admin of another workspace, and a member's dashboard session with and without its CSRF token).
// The routes come from the document, so a new one without a row in EXPECTED fails here.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { createApiKey, type CreatedKey } from '../../src/auth/api-keys.ts';
import { errorCode, bearer, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
const keys: Record<'admin' | 'owner' | 'member' | 'viewer' | 'stranger', CreatedKey> = {} as never;
before(async () => {
  database = await createTestDatabase('workspace_roles');
  Object.assign(keys, await keysWith(database.url, { admin: 'admin', owner: 'member', member: 'member', viewer: 'viewer' }));
  keys.stranger = (await workspaceWith(database.url, 'Other team', { stranger: 'admin' })).keys.stranger;
});
after(() => database.drop());

async function create(app: FastifyInstance, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url: '/links', payload: body, headers });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

type Caller = 'admin' | 'owner' | 'member' | 'viewer' | 'stranger';
/** Per caller: the status, and for an error its code. */
type Outcomes = Record<Caller, number | [number, string]>;

const READ: Outcomes = { admin: 200, owner: 200, member: 200, viewer: 200, stranger: 200 };
const LINK_READ: Outcomes = { ...READ, stranger: [404, 'LINK_NOT_FOUND'] };
const CHANGE = (ok: number): Outcomes => ({
  admin: ok,
  owner: ok,
  member: [403, 'API_KEY_NOT_OWNER'],
  viewer: [403, 'ROLE_FORBIDDEN'],
  stranger: [404, 'LINK_NOT_FOUND'],
});
const KEYS = (ok: number): Outcomes => ({
  admin: ok,
  owner: [403, 'ROLE_FORBIDDEN'],
  member: [403, 'ROLE_FORBIDDEN'],
  viewer: [403, 'ROLE_FORBIDDEN'],
  stranger: ok,
});

/** A person's own routes: a key, or a session opened with one, is no person. */
const PERSON: Outcomes = {
  admin: [403, 'PERSON_REQUIRED'],
  owner: [403, 'PERSON_REQUIRED'],
  member: [403, 'PERSON_REQUIRED'],
  viewer: [403, 'PERSON_REQUIRED'],
  stranger: [403, 'PERSON_REQUIRED'],
};
/** The deployment operators' routes (docs/operators.md): a key, even an operator's, carries no operator power. */
const OPERATOR: Outcomes = {
  admin: [403, 'OPERATOR_REQUIRED'],
  owner: [403, 'OPERATOR_REQUIRED'],
  member: [403, 'OPERATOR_REQUIRED'],
  viewer: [403, 'OPERATOR_REQUIRED'],
  stranger: [403, 'OPERATOR_REQUIRED'],
};
/** An admin's route on a member or an invitation the workspace does not have (its id is a key's). */
const ADMIN_NOT_FOUND = (code: 'MEMBER_NOT_FOUND' | 'INVITATION_NOT_FOUND'): Outcomes => ({
  ...KEYS(404),
  admin: [404, code],
  stranger: [404, code],
});

/** A registration answer of the right shape (a key is refused before it is judged). */
const PASSKEY_ANSWER = {
  id: 'AAAAAAAAAAAAAAAAAAAAAA',
  rawId: 'AAAAAAAAAAAAAAAAAAAAAA',
  type: 'public-key',
  clientExtensionResults: {},
  response: { clientDataJSON: 'e30', attestationObject: 'oA' },
};

/** Every operation that acts for a key, as the document names it. */
const EXPECTED: Record<string, Outcomes> = {
  'GET /links': READ,
  'GET /links/alias-availability': READ,
  'GET /links/export.csv': READ,
  'GET /tags': READ,
  'GET /links/{code}': LINK_READ,
  'GET /links/{code}/stats': LINK_READ,
  'GET /links/{code}/stats.csv': LINK_READ,
  'GET /links/{code}/health': LINK_READ,
  'PUT /links/{code}/health': CHANGE(200),
  'GET /stats': READ,
  'GET /stats.csv': READ,
  'PATCH /links/{code}': CHANGE(200),
  'DELETE /links/{code}': CHANGE(204),
  'POST /links/import': { ...READ, viewer: [403, 'ROLE_FORBIDDEN'] },
  'GET /keys': KEYS(200),
  'POST /keys': KEYS(201),
  // A key of the admin's workspace: the other workspace's admin does not find it.
  'DELETE /keys/{id}': { ...KEYS(204), stranger: [404, 'KEY_NOT_FOUND'] },
  'GET /domains': READ,
  'POST /domains': KEYS(201),
  // A domain of the admin's workspace: the other workspace's admin does not find it.
  'PATCH /domains/{host}': { ...KEYS(200), stranger: [404, 'DOMAIN_NOT_FOUND'] },
  'DELETE /domains/{host}': { ...KEYS(204), stranger: [404, 'DOMAIN_NOT_FOUND'] },
  // Verified at once: the app of these tests runs with DOMAIN_VERIFICATION=false (no DNS).
  'POST /domains/{host}/verify': { ...KEYS(200), stranger: [404, 'DOMAIN_NOT_FOUND'] },
  // Admins and members check their workspace's domains (DNS through a resolver that never answers: a fast 200 all the same).
  'GET /domains/{host}/check': { ...READ, viewer: [403, 'ROLE_FORBIDDEN'], stranger: [404, 'DOMAIN_NOT_FOUND'] },
  'GET /webhooks': KEYS(200),
  'POST /webhooks': KEYS(201),
  // An endpoint of the admin's workspace: the other workspace's admin does not find it.
  'GET /webhooks/{id}': { ...KEYS(200), stranger: [404, 'WEBHOOK_NOT_FOUND'] },
  'PATCH /webhooks/{id}': { ...KEYS(200), stranger: [404, 'WEBHOOK_NOT_FOUND'] },
  'DELETE /webhooks/{id}': { ...KEYS(204), stranger: [404, 'WEBHOOK_NOT_FOUND'] },
  'GET /webhooks/{id}/secret': { ...KEYS(200), stranger: [404, 'WEBHOOK_NOT_FOUND'] },
  'POST /webhooks/{id}/secret': { ...KEYS(200), stranger: [404, 'WEBHOOK_NOT_FOUND'] },
  'GET /webhooks/{id}/deliveries': { ...KEYS(200), stranger: [404, 'WEBHOOK_NOT_FOUND'] },
  'POST /webhooks/{id}/deliveries/{delivery}/resend': { ...KEYS(202), stranger: [404, 'WEBHOOK_NOT_FOUND'] },
  // The endpoints made here are disabled: the admin reaches the route, which sends nothing to one.
  'POST /webhooks/{id}/test': { ...KEYS(202), admin: [409, 'WEBHOOK_DISABLED'], stranger: [404, 'WEBHOOK_NOT_FOUND'] },
  'GET /audit': KEYS(200),
  'POST /auth/session/workspace': PERSON,
  'POST /auth/email/verification': PERSON,
  'PATCH /auth/profile': PERSON,
  'PUT /auth/password': PERSON,
  'PUT /auth/email': PERSON,
  'GET /auth/sessions': PERSON,
  'GET /auth/joinable': PERSON,
  'POST /auth/joinable/{id}/join': PERSON,
  'DELETE /auth/sessions/{id}': PERSON,
  'GET /auth/second-factors': PERSON,
  'POST /auth/recovery-codes': PERSON,
  'POST /auth/passkeys/registration': PERSON,
  'POST /auth/passkeys': PERSON,
  'PATCH /auth/passkeys/{id}': PERSON,
  'DELETE /auth/passkeys/{id}': PERSON,
  'POST /auth/totp': PERSON,
  'POST /auth/totp/confirm': PERSON,
  'POST /auth/totp/disable': PERSON,
  'GET /operator/me': READ,
  'GET /operator/reports': OPERATOR,
  'POST /operator/reports/{id}/action': OPERATOR,
  'GET /operator/workspaces': OPERATOR,
  'PATCH /operator/workspaces/{id}': OPERATOR,
  'GET /members': { admin: 200, owner: 200, member: 200, viewer: 200, stranger: 200 },
  'PATCH /members/{id}': ADMIN_NOT_FOUND('MEMBER_NOT_FOUND'),
  'DELETE /members/{id}': ADMIN_NOT_FOUND('MEMBER_NOT_FOUND'),
  'POST /members/{id}/reset-link': ADMIN_NOT_FOUND('MEMBER_NOT_FOUND'),
  'GET /invitations': KEYS(200),
  'POST /invitations': KEYS(201),
  'DELETE /invitations/{id}': ADMIN_NOT_FOUND('INVITATION_NOT_FOUND'),
  // Every member reads the settings; only admins change them.
  'GET /workspace': READ,
  'PATCH /workspace': KEYS(200),
  'GET /audit/export': KEYS(200),
};

let domains = 0;
/** A host no domain has yet. */
const freshHost = () => `d${++domains}-${Date.now()}.example.com`;

/** The request for an operation, on a fresh target where it changes one (a link of the owner's, a key to revoke). */
async function requestFor(app: FastifyInstance, operation: string, headers: Record<string, string>): Promise<InjectOptions> {
  const [method = 'GET', path = ''] = operation.split(' ');
  let url = operation === 'GET /links/alias-availability' ? `${path}?alias=free-here` : path;
  if (path.includes('{code}')) url = path.replace('{code}', await create(app, { url: 'https://example.com/owned' }, bearer(keys.owner)));
  if (path.startsWith('/webhooks/')) {
    // An endpoint of the default workspace, disabled (nothing is sent), with one delivery to resend.
    const [endpoint, delivery] = await withClient(database.url, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        "INSERT INTO webhook_endpoints (workspace_id, url, events, enabled, secret) VALUES (1, 'https://hooks.example.com/', '{link.created}', false, 'whsec_AAAA') RETURNING id",
      );
      const id = rows[0]?.id;
      const sent = await client.query<{ id: string }>(
        `WITH m AS (INSERT INTO webhook_messages (workspace_id, type, data) VALUES (1, 'link.created', '{}') RETURNING id)
         INSERT INTO webhook_deliveries (message_id, endpoint_id, state) SELECT m.id, $1, 'dead' FROM m RETURNING id`,
        [id],
      );
      return [id, sent.rows[0]?.id];
    });
    url = path.replace('{id}', String(endpoint)).replace('{delivery}', String(delivery));
  } else if (path.includes('{id}')) {
    const fresh = await withClient(database.url, (client) => createApiKey(client, { name: 'to revoke', role: 'viewer' }));
    url = path.replace('{id}', String(fresh.id));
  }
  if (path.includes('{host}')) {
    const host = freshHost();
    await withClient(database.url, (client) =>
      client.query("INSERT INTO domains (workspace_id, host, verification_status) VALUES (1, $1, 'verified')", [host]),
    );
    url = path.replace('{host}', host);
  }
  const payloads: Record<string, InjectOptions['payload']> = {
    'POST /domains': { host: freshHost() },
    'PATCH /domains/{host}': { rootRedirect: 'https://example.com/' },
    'PATCH /links/{code}': { disabled: false },
    'PUT /links/{code}/health': { probes: true },
    'POST /links/import': 'url\nhttps://example.com/imported\n',
    'POST /keys': { name: 'made here', role: 'viewer' },
    'POST /webhooks': { url: 'https://hooks.example.com/roles', events: ['link.created'], enabled: false },
    'PATCH /webhooks/{id}': { description: 'changed' },
    'POST /auth/session/workspace': { workspaceId: 1 },
    'PATCH /auth/profile': { name: 'Someone' },
    'PUT /auth/password': { currentPassword: 'the old one', newPassword: 'a new passphrase' },
    'PUT /auth/email': { email: 'someone@example.com', password: 'the old one' },
    'PATCH /members/{id}': { role: 'viewer' },
    'POST /operator/reports/{id}/action': { action: 'dismiss' },
    'PATCH /operator/workspaces/{id}': { suspended: true },
    'POST /invitations': { email: 'invited@example.com', role: 'viewer' },
    'PATCH /workspace': { auditRetentionDays: 400 },
    'POST /auth/passkeys': { name: 'Laptop', response: PASSKEY_ANSWER },
    'PATCH /auth/passkeys/{id}': { name: 'Laptop' },
    'POST /auth/totp/confirm': { code: '123456' },
    'POST /auth/totp/disable': { code: '123456' },
  };
  const request: InjectOptions = { method, url, headers: { ...headers } };
  if (operation === 'POST /links/import') request.headers = { ...headers, 'content-type': 'text/csv' };
  const payload = payloads[operation];
  if (payload !== undefined) request.payload = payload;
  return request;
}

async function signIn(app: FastifyInstance, key: CreatedKey): Promise<{ cookie: string; csrf: string }> {
  const res = await app.inject({ method: 'POST', url: '/auth/session', payload: { key: key.secret } });
  assert.equal(res.statusCode, 200, res.body);
  const cookie = String(res.headers['set-cookie']).split(';')[0] ?? '';
  return { cookie, csrf: res.json<{ csrfToken: string }>().csrfToken };
}

describe('roles', () => {
  test('every route that acts for a key: 401 without one or with a bad one; admin, creator, member, viewer and another workspace each get what their role allows; a session is its key, its changes need the CSRF token', async (t: Cleanup) => {
    const { app } = await startApp(t, database.url, {
      DOMAIN_VERIFICATION: 'false',
      DOMAIN_DNS_RESOLVERS: '127.0.0.1:9',
      DOMAIN_CHECK_TIMEOUT_MS: '100',
    });
    const document = (await app.inject({ url: '/docs/json' })).json<{
      paths: Record<string, Record<string, { security?: unknown[]; requestBody?: unknown }>>;
    }>();
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
    );
    const secured = operations.filter(({ operation }) => (operation.security ?? []).length > 0).map(({ name }) => name);
    assert.deepEqual(secured.sort(), Object.keys(EXPECTED).sort(), 'each route that acts for a key has its row here, and only those');

    // Those the document leaves open answer without a key (a create, a redirect, health, a QR code).
    const someCode = await create(app, { url: 'https://example.com/some' });
    const open = operations.filter((operation) => !secured.includes(operation.name)).map(({ name }) => name);
    for (const route of ['POST /links', 'GET /{code}', 'GET /healthz'])
      assert.ok(open.includes(route), `${route} is among the open routes`);
    for (const name of open) {
      if (name === 'DELETE /auth/session' || name === 'GET /auth/session' || name === 'POST /auth/session') continue;
      const request = await requestFor(app, name.replace('{code}', someCode), {});
      const res = await app.inject({
        ...request,
        ...(name === 'POST /links' ? { payload: { url: 'https://example.com/open' } } : {}),
        ...(name === 'POST /links/bulk' ? { payload: { links: [{ url: 'https://example.com/open' }] } } : {}),
      });
      assert.notEqual(res.statusCode, 401, `${name} asks for a key, but the document does not say so`);
    }

    const session = await signIn(app, keys.owner);
    for (const [operation, outcomes] of Object.entries(EXPECTED)) {
      const unsafe = !operation.startsWith('GET ');
      const none = await app.inject(await requestFor(app, operation, {}));
      assert.equal(none.statusCode, 401, `${operation} without a key`);
      assert.equal(errorCode(none), 'API_KEY_REQUIRED');
      for (const headers of [
        { authorization: `Bearer sk_${'A'.repeat(43)}` },
        { authorization: 'Basic abc' },
        { 'x-api-key': 'nonsense' },
      ]) {
        const wrong = await app.inject(await requestFor(app, operation, headers));
        assert.equal(wrong.statusCode, 401, `${operation} with ${JSON.stringify(headers)}`);
        assert.equal(errorCode(wrong), 'API_KEY_INVALID');
      }
      for (const [caller, outcome] of Object.entries(outcomes) as [Caller, Outcomes[Caller]][]) {
        const [status, code] = typeof outcome === 'number' ? [outcome, undefined] : outcome;
        const res = await app.inject(await requestFor(app, operation, bearer(keys[caller])));
        assert.equal(res.statusCode, status, `${operation} by the ${caller}: ${res.body.slice(0, 200)}`);
        if (code !== undefined) assert.equal(errorCode(res), code, `${operation} by the ${caller}`);
      }
      // The owner's session acts as the owner's key; a change without the CSRF token is refused.
      const [ownerStatus] = [outcomes.owner].flat() as [number];
      const withToken = await app.inject(await requestFor(app, operation, { cookie: session.cookie, 'x-csrf-token': session.csrf }));
      assert.equal(withToken.statusCode, ownerStatus, `${operation} with the owner's session`);
      if (unsafe) {
        for (const csrf of [undefined, 'x'.repeat(43), session.csrf.slice(1)]) {
          const headers = { cookie: session.cookie, ...(csrf === undefined ? {} : { 'x-csrf-token': csrf }) };
          const forged = await app.inject(await requestFor(app, operation, headers));
          assert.equal(forged.statusCode, 403, `${operation} with the session and CSRF token ${String(csrf)}`);
          assert.equal(errorCode(forged), 'CSRF_TOKEN_INVALID');
        }
      }
    }
  });

  test('a link created without a key is in the default workspace: its admins manage it, no member does; a key sees its workspace’s links only', async (t) => {
    const { app } = await startApp(t, database.url);
    const anonymous = await create(app, { url: 'https://example.com/by-nobody' });
    const mine = await create(app, { url: 'https://example.com/by-owner', title: 'Owned' }, bearer(keys.owner));
    const theirs = await create(app, { url: 'https://example.com/by-stranger' }, bearer(keys.stranger));

    const patch = (code: string, key: CreatedKey) =>
      app.inject({ method: 'PATCH', url: `/links/${code}`, headers: bearer(key), payload: { title: 'Moderated' } });
    assert.equal((await patch(anonymous, keys.admin)).statusCode, 200);
    const byMember = await patch(anonymous, keys.owner);
    assert.equal(byMember.statusCode, 403);
    assert.equal(errorCode(byMember), 'API_KEY_NOT_OWNER');

    const listed = async (key: CreatedKey) =>
      (await app.inject({ url: '/links?limit=100', headers: bearer(key) })).json<{ links: { code: string }[] }>().links.map((l) => l.code);
    const defaultWorkspace = await listed(keys.viewer);
    assert.ok(defaultWorkspace.includes(anonymous) && defaultWorkspace.includes(mine), 'the default workspace holds both');
    assert.ok(!defaultWorkspace.includes(theirs), 'another workspace’s link is not listed');
    const otherWorkspace = await listed(keys.stranger);
    assert.ok(otherWorkspace.includes(theirs), 'the other workspace holds its own link');
    assert.ok(!otherWorkspace.includes(mine) && !otherWorkspace.includes(anonymous), 'and none of the default workspace’s');

    const details = await app.inject({ url: `/links/${mine}`, headers: bearer(keys.viewer) });
    assert.equal(details.statusCode, 200);
    assert.deepEqual(
      { ...details.json<Record<string, unknown>>(), createdAt: 'x' },
      {
        code: mine,
        domain: 'sho.rt',
        shortUrl: `https://sho.rt/${mine}`,
        url: 'https://example.com/by-owner',
        title: 'Owned',
        tags: [],
        expiresAt: null,
        startsAt: null,
        disabled: false,
        archivedAt: null,
        state: 'active',
        safety: null,
        createdAt: 'x',
        creator: { id: keys.owner.id, name: 'owner' },
        clicks: 0,
        botClicks: 0,
        clicksUsed: null,
        options: null,
      },
    );
    // Redirects never look at keys or sessions: a wrong one does not get in their way.
    assert.equal((await app.inject({ url: `/${mine}`, headers: { authorization: 'Bearer wrong' } })).statusCode, 302);
    assert.equal((await app.inject({ url: `/${theirs}`, headers: { cookie: 'shortener_session=stale' } })).statusCode, 302);
  });

  test('a viewer creates nothing, one by one, in bulk or by import; a member’s links are its own and its workspace’s', async (t) => {
    const { app } = await startApp(t, database.url);
    const single = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(keys.viewer),
      payload: { url: 'https://example.com/v' },
    });
    assert.equal(single.statusCode, 403);
    assert.equal(errorCode(single), 'ROLE_FORBIDDEN');
    const bulk = await app.inject({
      method: 'POST',
      url: '/links/bulk',
      headers: bearer(keys.viewer),
      payload: { links: [{ url: 'https://example.com/v' }] },
    });
    assert.equal(bulk.statusCode, 403);
    assert.equal(errorCode(bulk), 'ROLE_FORBIDDEN');
    const { rows } = await withClient(database.url, (client) =>
      client.query<{ n: number }>("SELECT count(*)::int AS n FROM links WHERE url = 'https://example.com/v'"),
    );
    assert.equal(rows[0]?.n, 0, 'nothing was stored');

    const code = await create(app, { url: 'https://example.com/members' }, bearer(keys.member));
    const stored = await withClient(database.url, (client) =>
      client.query<{ workspace_id: string; owner_key_id: string }>('SELECT workspace_id, owner_key_id FROM links WHERE code = $1', [code]),
    );
    assert.deepEqual(stored.rows[0], { workspace_id: '1', owner_key_id: String(keys.member.id) });
  });
});
