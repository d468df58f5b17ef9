// People end to end over the API, on a real Postgres and a real SMTP server on loopback: the first
// admin set up from loopback (and only with the setup token from elsewhere), invitations mailed and
// accepted, sign-in with a password (no hint, limited per account), roles and the last admin, leaving
// revoking keys and sessions, personal keys capped at their person's role, sessions listed and
// closed, password change and reset, email verification, switching workspace, and the audit entries
// each of these writes in its transaction.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { errorCode, startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { linkIn, startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.ts';

let database: TestDatabase;
let smtp: TestSmtpServer;
const clean: (() => Promise<void>)[] = [];
let app: FastifyInstance;

before(async () => {
  database = await createTestDatabase('people');
  smtp = await startSmtpServer();
  ({ app } = await startApp({ after: (fn) => void clean.push(fn) }, database.url, {
    SMTP_URL: smtp.url,
    SIGN_IN_ACCOUNT_MAX_FAILURES: '3',
    SIGN_IN_MAX_FAILURES: '1000',
  }));
});
after(async () => {
  for (const fn of clean.toReversed()) await fn();
  await smtp.close();
  await database.drop();
});

interface Signed {
  cookie: string;
  csrf: string;
  body: SessionBody;
}
interface SessionBody {
  key: { id: number; role: string };
  workspace: { id: number; name: string };
  person: { id: number; email: string; emailVerified: boolean } | null;
  workspaces: { id: number; name: string; role: string }[];
  csrfToken: string;
}

const cookieOf = (res: LightMyRequestResponse): string => String(res.headers['set-cookie']).split(';')[0] ?? '';

function signedFrom(res: LightMyRequestResponse, status = 200): Signed {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<SessionBody>();
  return { cookie: cookieOf(res), csrf: body.csrfToken, body };
}

const as = (who: Signed) => ({ cookie: who.cookie, 'x-csrf-token': who.csrf });

function signIn(email: string, password: string, remoteAddress = '127.0.0.1') {
  return app.inject({ method: 'POST', url: '/auth/sign-in', payload: { email, password }, remoteAddress });
}

const PASSWORD = 'a long and unusual passphrase';
let ada: Signed;

async function auditActions(who: Signed, query = ''): Promise<string[]> {
  const res = await app.inject({ url: `/audit${query}`, headers: as(who) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ entries: { action: string }[] }>().entries.map((entry) => entry.action);
}

describe('the first admin', () => {
  test('from another address the setup token is needed; from loopback it is not; then setup is done for good', async () => {
    const options = await app.inject({ url: '/auth/options' });
    assert.equal(options.json<{ setupNeeded: boolean }>().setupNeeded, true);
    const remote = await app.inject({ url: '/auth/setup', remoteAddress: '203.0.113.9' });
    assert.deepEqual(remote.json(), { needed: true, tokenRequired: true, mail: true });
    const payload = { name: 'Ada Lovelace', email: 'Ada@Example.com', password: PASSWORD };
    const refused = await app.inject({ method: 'POST', url: '/auth/setup', payload, remoteAddress: '203.0.113.9' });
    assert.equal(refused.statusCode, 403);
    assert.equal(errorCode(refused), 'SETUP_TOKEN_INVALID');
    const forwarded = await app.inject({ method: 'POST', url: '/auth/setup', payload, headers: { 'x-forwarded-for': '203.0.113.9' } });
    assert.equal(errorCode(forwarded), 'SETUP_TOKEN_INVALID', 'a proxy on this host does not make a request local');
    const common = await app.inject({ method: 'POST', url: '/auth/setup', payload: { ...payload, password: 'password123' } });
    assert.equal(errorCode(common), 'PASSWORD_TOO_COMMON');

    const { rows } = await withClient(database.url, (client) => client.query<{ token: string }>('SELECT token FROM setup_token'));
    const token = rows[0]?.token ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{32}$/);
    ada = signedFrom(
      await app.inject({ method: 'POST', url: '/auth/setup', payload: { ...payload, token }, remoteAddress: '203.0.113.9' }),
      201,
    );
    assert.equal(ada.body.person?.email, 'ada@example.com');
    assert.equal(ada.body.key.role, 'admin');
    assert.deepEqual(
      ada.body.workspaces.map((w) => w.role),
      ['admin'],
    );
    const again = await app.inject({ method: 'POST', url: '/auth/setup', payload: { ...payload, email: 'eve@example.com' } });
    assert.equal(again.statusCode, 409);
    assert.equal(errorCode(again), 'SETUP_DONE');
    const stored = await withClient(database.url, (client) => client.query<{ password_hash: string }>('SELECT password_hash FROM people'));
    assert.match(stored.rows[0]?.password_hash ?? '', /^\$argon2id\$/);
    assert.ok(!JSON.stringify(stored.rows).includes(PASSWORD));
  });

  test('sign-in: right password opens a session; a wrong one and an unknown address are the same 401; an account is limited', async () => {
    const right = signedFrom(await signIn('ADA@example.com ', PASSWORD));
    // The dashboard asks the options, not GET /auth/session, whether it is signed in: no 401 on a signed-out load.
    const signedIn = async (cookie?: string) =>
      (await app.inject({ url: '/auth/options', ...(cookie === undefined ? {} : { headers: { cookie } }) })).json<{ signedIn: boolean }>()
        .signedIn;
    assert.equal(await signedIn(), false);
    assert.equal(await signedIn(right.cookie), true);
    assert.equal(await signedIn(right.cookie.replace(/=([^;]{4})/, '=AAAA')), false, 'a cookie that opens no session is no error');
    assert.equal(right.body.person?.email, 'ada@example.com');
    const wrong = await signIn('ada@example.com', 'not the passphrase');
    const unknown = await signIn('nobody@example.com', 'not the passphrase');
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(wrong.json(), unknown.json(), 'no hint whether the address has an account');
    // SIGN_IN_ACCOUNT_MAX_FAILURES=3, from several addresses: the account's budget, not the client's.
    await signIn('ada@example.com', 'guess two', '198.51.100.1');
    await signIn('ada@example.com', 'guess three', '198.51.100.2');
    const limited = await signIn('ada@example.com', PASSWORD, '198.51.100.3');
    assert.equal(limited.statusCode, 429);
    assert.equal(errorCode(limited), 'SIGN_IN_RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.ok((await auditActions(ada, '?action=person.*')).includes('person.sign-in-failed'));
  });
});

let grace: Signed;

describe('members', () => {
  test('an invitation is mailed, accepted once with a new account, and the new member is in the list and the audit log', async () => {
    const invited = await app.inject({
      method: 'POST',
      url: '/invitations',
      payload: { email: 'grace@example.com', role: 'member' },
      headers: as(ada),
    });
    assert.equal(invited.statusCode, 201, invited.body);
    assert.equal(invited.json<{ sent: boolean; url?: string }>().sent, true);
    assert.equal(invited.json<{ url?: string }>().url, undefined, 'a mailed link is not shown to the admin');
    const mail = await smtp.next((m) => m.subject?.includes('invit') === true || m.subject?.includes('Invit') === true);
    assert.deepEqual(
      (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address)),
      ['grace@example.com'],
    );
    const link = new URL(linkIn(mail, '/app/invitation?token='));
    const token = link.searchParams.get('token') ?? '';
    const preview = await app.inject({ url: `/auth/invitations/${token}` });
    assert.equal(preview.statusCode, 200);
    assert.equal(preview.json<{ account: boolean; role: string }>().account, false);
    const weak = await app.inject({
      method: 'POST',
      url: `/auth/invitations/${token}/accept`,
      payload: { name: 'Grace', password: 'short' },
    });
    assert.equal(errorCode(weak), 'PASSWORD_TOO_SHORT');
    grace = signedFrom(
      await app.inject({ method: 'POST', url: `/auth/invitations/${token}/accept`, payload: { name: 'Grace Hopper', password: PASSWORD } }),
      201,
    );
    assert.equal(grace.body.key.role, 'member');
    assert.equal(grace.body.person?.emailVerified, true, 'a mailed invitation proves the address');
    const reused = await app.inject({
      method: 'POST',
      url: `/auth/invitations/${token}/accept`,
      payload: { name: 'Mallory', password: PASSWORD },
    });
    assert.equal(errorCode(reused), 'INVITATION_INVALID');
    const members = await app.inject({ url: '/members', headers: as(grace) });
    assert.deepEqual(
      members.json<{ members: { email: string; role: string; you: boolean }[] }>().members.map((m) => [m.email, m.role, m.you]),
      [
        ['ada@example.com', 'admin', false],
        ['grace@example.com', 'member', true],
      ],
    );
    const actions = await auditActions(ada, '?action=member.*');
    assert.deepEqual(actions.slice(0, 2), ['member.join', 'member.invite']);
  });

  test('a member cannot manage members; the last admin cannot leave or be demoted; roles cap personal keys', async () => {
    const forbidden = await app.inject({
      method: 'PATCH',
      url: `/members/${ada.body.person?.id}`,
      payload: { role: 'viewer' },
      headers: as(grace),
    });
    assert.equal(forbidden.statusCode, 403);
    const adaId = ada.body.person?.id;
    const leave = await app.inject({ method: 'DELETE', url: `/members/${adaId}`, headers: as(ada) });
    assert.equal(errorCode(leave), 'LAST_ADMIN');
    const demote = await app.inject({ method: 'PATCH', url: `/members/${adaId}`, payload: { role: 'member' }, headers: as(ada) });
    assert.equal(errorCode(demote), 'LAST_ADMIN');

    const tooHigh = await app.inject({ method: 'POST', url: '/keys', payload: { name: 'mine', role: 'admin' }, headers: as(grace) });
    assert.equal(errorCode(tooHigh), 'ROLE_FORBIDDEN');
    const personal = await app.inject({
      method: 'POST',
      url: '/keys',
      payload: { name: 'grace laptop', role: 'member' },
      headers: as(grace),
    });
    assert.equal(personal.statusCode, 201, personal.body);
    const secret = personal.json<{ key: string; owner: { name: string } }>().key;
    assert.equal(personal.json<{ owner: { name: string } }>().owner.name, 'Grace Hopper');
    const made = await app.inject({
      method: 'POST',
      url: '/links',
      payload: { url: 'https://example.com/by-key' },
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(made.statusCode, 201, made.body);
    const code = made.json<{ code: string }>().code;
    // Her session changes what her personal key created: the same person.
    const changed = await app.inject({ method: 'PATCH', url: `/links/${code}`, payload: { title: 'mine' }, headers: as(grace) });
    assert.equal(changed.statusCode, 200, changed.body);

    const toViewer = await app.inject({
      method: 'PATCH',
      url: `/members/${grace.body.person?.id}`,
      payload: { role: 'viewer' },
      headers: as(ada),
    });
    assert.equal(toViewer.statusCode, 200, toViewer.body);
    const keyRole = await withClient(database.url, (client) =>
      client.query<{ role: string }>(`SELECT role FROM api_keys WHERE name = 'grace laptop'`),
    );
    assert.equal(keyRole.rows[0]?.role, 'viewer', 'her personal key keeps at most her role');
    const back = await app.inject({
      method: 'PATCH',
      url: `/members/${grace.body.person?.id}`,
      payload: { role: 'member' },
      headers: as(ada),
    });
    assert.equal(back.statusCode, 200);
    assert.ok((await auditActions(ada, '?action=member.role')).length === 2);
  });

  test('a person in two workspaces switches between them; leaving one revokes their keys and sessions there', async () => {
    const second = await app.inject({ method: 'PATCH', url: '/workspace', payload: { name: 'Marketing' }, headers: as(ada) });
    assert.equal(second.statusCode, 200, second.body);
    const { rows } = await withClient(database.url, (client) =>
      client.query<{ id: string }>(`INSERT INTO workspaces (name) VALUES ('Sales') RETURNING id`),
    );
    const sales = Number(rows[0]?.id);
    // Ada joins Sales by an invitation she accepts while signed in.
    await withClient(database.url, async (client) => {
      await client.query(
        `WITH k AS (INSERT INTO api_keys (name, hash, role, workspace_id, kind, person_id) VALUES ('Ada Lovelace', sha256('ada-sales'), 'admin', $1, 'member', $2) RETURNING id)
         INSERT INTO memberships (person_id, workspace_id, key_id) SELECT $2, $1, id FROM k`,
        [sales, ada.body.person?.id],
      );
    });
    const invited = await app.inject({
      method: 'POST',
      url: '/invitations',
      payload: { email: 'grace@example.com', role: 'viewer' },
      headers: as(ada),
    });
    assert.equal(errorCode(invited), 'ALREADY_MEMBER');
    const switched = await app.inject({
      method: 'POST',
      url: '/auth/session/workspace',
      payload: { workspaceId: sales },
      headers: as(ada),
    });
    assert.equal(switched.statusCode, 200, switched.body);
    assert.equal(switched.json<SessionBody>().workspace.name, 'Sales');
    const inSales = await app.inject({
      method: 'POST',
      url: '/invitations',
      payload: { email: 'grace@example.com', role: 'viewer' },
      headers: as(ada),
    });
    assert.equal(inSales.statusCode, 201, inSales.body);
    const mail = await smtp.next((m) => (m.text ?? '').includes('Sales'));
    const token = new URL(linkIn(mail, '/app/invitation?token=')).searchParams.get('token') ?? '';
    const preview = await app.inject({ url: `/auth/invitations/${token}` });
    assert.equal(preview.json<{ account: boolean }>().account, true);
    const anonymous = await app.inject({ method: 'POST', url: `/auth/invitations/${token}/accept`, payload: {} });
    assert.equal(errorCode(anonymous), 'NOT_SIGNED_IN');
    const joined = await app.inject({ method: 'POST', url: `/auth/invitations/${token}/accept`, payload: {}, headers: as(grace) });
    assert.equal(joined.statusCode, 200, joined.body);
    assert.deepEqual(
      joined.json<SessionBody>().workspaces.map((w) => [w.name, w.role]),
      [
        ['Marketing', 'member'],
        ['Sales', 'viewer'],
      ],
    );
    const notMine = await app.inject({
      method: 'POST',
      url: '/auth/session/workspace',
      payload: { workspaceId: 999_999 },
      headers: as(grace),
    });
    assert.equal(errorCode(notMine), 'WORKSPACE_NOT_FOUND');
    // Grace leaves Sales (her session is there now): her session there ends.
    const left = await app.inject({ method: 'DELETE', url: `/members/${grace.body.person?.id}`, headers: as(grace) });
    assert.equal(left.statusCode, 204, left.body);
    const gone = await app.inject({ url: '/auth/session', headers: as(grace) });
    assert.equal(gone.statusCode, 401);
    grace = signedFrom(await signIn('grace@example.com', PASSWORD));
    assert.deepEqual(
      grace.body.workspaces.map((w) => w.name),
      ['Marketing'],
    );
    const home = await app.inject({ method: 'POST', url: '/auth/session/workspace', payload: { workspaceId: 1 }, headers: as(ada) });
    assert.equal(home.json<SessionBody>().workspace.name, 'Marketing');
  });

  test('sessions are listed and closed by their owner; a password change closes the others; a reset by mail sets a new one', async () => {
    const other = signedFrom(await signIn('grace@example.com', PASSWORD));
    const list = await app.inject({ url: '/auth/sessions', headers: as(grace) });
    const sessions = list.json<{ sessions: { id: string; current: boolean; address: string }[] }>().sessions;
    assert.ok(sessions.length >= 2);
    assert.equal(sessions.filter((s) => s.current).length, 1);
    assert.equal(sessions[0]?.address, '127.0.0.0', 'addresses are truncated');
    const otherId = sessions.find((s) => !s.current)?.id ?? '';
    assert.equal((await app.inject({ method: 'DELETE', url: `/auth/sessions/${otherId}`, headers: as(grace) })).statusCode, 204);
    assert.equal((await app.inject({ method: 'DELETE', url: `/auth/sessions/${otherId}`, headers: as(grace) })).statusCode, 404);
    void other;

    const third = signedFrom(await signIn('grace@example.com', PASSWORD));
    const wrong = await app.inject({
      method: 'PUT',
      url: '/auth/password',
      payload: { currentPassword: 'nope', newPassword: 'another fine passphrase' },
      headers: as(grace),
    });
    assert.equal(errorCode(wrong), 'CURRENT_PASSWORD_WRONG');
    const changed = await app.inject({
      method: 'PUT',
      url: '/auth/password',
      payload: { currentPassword: PASSWORD, newPassword: 'another fine passphrase' },
      headers: as(grace),
    });
    assert.equal(changed.statusCode, 204, changed.body);
    assert.equal((await app.inject({ url: '/auth/session', headers: as(third) })).statusCode, 401, 'other sessions closed');
    assert.equal((await app.inject({ url: '/auth/session', headers: as(grace) })).statusCode, 200, 'this one stays');

    const asked = await app.inject({ method: 'POST', url: '/auth/password-reset', payload: { email: 'grace@example.com' } });
    assert.equal(asked.statusCode, 202);
    const unknown = await app.inject({ method: 'POST', url: '/auth/password-reset', payload: { email: 'nobody@example.com' } });
    assert.equal(unknown.statusCode, 202, 'the same answer for an unknown address');
    const mail = await smtp.next((m) => (m.text ?? '').includes('/app/reset-password?token='));
    const token = new URL(linkIn(mail, '/app/reset-password?token=')).searchParams.get('token') ?? '';
    const reset = await app.inject({
      method: 'POST',
      url: '/auth/password-reset/confirm',
      payload: { token, password: 'a third good passphrase' },
    });
    assert.equal(reset.statusCode, 204, reset.body);
    const twice = await app.inject({
      method: 'POST',
      url: '/auth/password-reset/confirm',
      payload: { token, password: 'a fourth good passphrase' },
    });
    assert.equal(errorCode(twice), 'EMAIL_TOKEN_INVALID');
    assert.equal((await app.inject({ url: '/auth/session', headers: as(grace) })).statusCode, 401, 'a reset closes every session');
    grace = signedFrom(await signIn('grace@example.com', 'a third good passphrase'));
  });

  test('an email change needs the password, is unverified until its mailed link is followed', async () => {
    const taken = await app.inject({
      method: 'PUT',
      url: '/auth/email',
      payload: { email: 'ada@example.com', password: 'a third good passphrase' },
      headers: as(grace),
    });
    assert.equal(errorCode(taken), 'EMAIL_TAKEN');
    const changed = await app.inject({
      method: 'PUT',
      url: '/auth/email',
      payload: { email: 'grace@navy.example', password: 'a third good passphrase' },
      headers: as(grace),
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json<{ emailVerified: boolean }>().emailVerified, false);
    const mail = await smtp.next((m) => (m.text ?? '').includes('/app/verify-email?token='));
    const token = new URL(linkIn(mail, '/app/verify-email?token=')).searchParams.get('token') ?? '';
    assert.equal((await app.inject({ method: 'POST', url: '/auth/email/verify', payload: { token } })).statusCode, 204);
    const session = await app.inject({ url: '/auth/session', headers: as(grace) });
    assert.deepEqual(session.json<SessionBody>().person?.emailVerified, true);
    const actions = await auditActions(ada, '?action=person.*');
    assert.ok(actions.includes('person.email') && actions.includes('person.password'), actions.join());
  });
});

describe('joining by email domain', () => {
  test('a workspace that takes a domain lets people of that verified domain join as members on their own', async () => {
    const sales = (await app.inject({ url: '/auth/session', headers: as(ada) }))
      .json<SessionBody>()
      .workspaces.find((w) => w.name === 'Sales');
    assert.ok(sales !== undefined);
    await app.inject({ method: 'POST', url: '/auth/session/workspace', payload: { workspaceId: sales.id }, headers: as(ada) });
    const bad = await app.inject({ method: 'PATCH', url: '/workspace', payload: { joinDomain: 'not a domain' }, headers: as(ada) });
    assert.equal(errorCode(bad), 'WORKSPACE_SETTINGS_INVALID');
    const set = await app.inject({ method: 'PATCH', url: '/workspace', payload: { joinDomain: '@Navy.Example' }, headers: as(ada) });
    assert.equal(set.json<{ joinDomain: string }>().joinDomain, 'navy.example');
    await app.inject({ method: 'POST', url: '/auth/session/workspace', payload: { workspaceId: 1 }, headers: as(ada) });

    const joinable = await app.inject({ url: '/auth/joinable', headers: as(grace) });
    assert.deepEqual(joinable.json(), { workspaces: [{ id: sales.id, name: 'Sales' }] });
    const joined = await app.inject({ method: 'POST', url: `/auth/joinable/${sales.id}/join`, headers: as(grace) });
    assert.equal(joined.statusCode, 200, joined.body);
    assert.deepEqual([joined.json<SessionBody>().workspace.name, joined.json<SessionBody>().key.role], ['Sales', 'member']);
    const again = await app.inject({ method: 'POST', url: `/auth/joinable/${sales.id}/join`, headers: as(grace) });
    assert.equal(errorCode(again), 'WORKSPACE_NOT_FOUND', 'a member already: nothing to join');
    // Ada's domain is another: nothing to join.
    assert.deepEqual((await app.inject({ url: '/auth/joinable', headers: as(ada) })).json(), { workspaces: [] });
  });
});

describe('idle sessions', () => {
  test('a person’s session idle for longer than SESSION_IDLE_MINUTES ends; the absolute expiry stands besides', async () => {
    const idle = signedFrom(await signIn('grace@navy.example', 'a third good passphrase'));
    assert.equal((await app.inject({ url: '/auth/session', headers: as(idle) })).statusCode, 200);
    await withClient(database.url, (client) =>
      client.query(`UPDATE sessions SET last_seen_at = now() - interval '121 minutes' WHERE csrf_token = $1`, [idle.csrf]),
    );
    // What this instance remembers of the session stands for up to 10 s (credentials.ts): ask another.
    const { app: fresh } = await startApp({ after: (fn) => void clean.push(fn) }, database.url);
    assert.equal((await fresh.inject({ url: '/auth/session', headers: as(idle) })).statusCode, 401);
  });
});
