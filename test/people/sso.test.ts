// Single sign-on with OpenID Connect, against a real OpenID provider on loopback (oidc-provider, in
// this process: ./oidc-provider.ts) and the real app on a real port: in Chromium, a person signs in on
// the provider's page and lands in the dashboard (matched by verified email, or created in the
// workspace that takes their domain); over HTTP, what is refused and how: a state that is absent,
// altered, expired or another sign-in's, an ID token for another nonce, an email that is not verified
// or whose domain no workspace takes, an address another identity of the provider holds, a provider
// that is down or silent; and require-SSO for a workspace. Nothing secret reaches the log.

import assert from 'node:assert/strict';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Browser } from 'playwright-core';
import { createWorkspace } from '../../src/auth/api-keys.ts';
import { DEV_CODE_SECRET } from '../../src/config/config.ts';
import { deriveKey } from '../../src/core/keys.ts';
import { DEFAULT_WORKSPACE_ID } from '../../src/core/link.ts';
import { addMembership, createPerson, findPersonByEmail } from '../../src/people/people-store.ts';
import { openState, sealState } from '../../src/people/sso-state.ts';
import { errorCode, startApp } from '../helpers/app.ts';
import { launchChromium, look, unfoldMenu, watchedPage } from '../helpers/browser.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { startLoggedApp, type LogLine } from '../helpers/logs.ts';
import { freePort } from '../helpers/redis.ts';
import { CLIENT, startProvider, type TestProvider } from './oidc-provider.ts';

const PASSWORD = 'a long and unusual passphrase';
const KEY = deriveKey(DEV_CODE_SECRET, 'sso-state');
let database: TestDatabase;
let provider: TestProvider;
let app: FastifyInstance;
let base: string;
let lines: LogLine[];
const clean: (() => Promise<void>)[] = [];
/** Every authorization code, state and nonce the tests saw: none may be logged. */
const secrets: string[] = [CLIENT.secret];

const sql = <T extends object>(text: string, values: unknown[] = []) =>
  withClient(database.url, async (client) => (await client.query<T>(text, values)).rows);

before(async () => {
  database = await createTestDatabase('sso');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  provider = await startProvider(`${base}/auth/sso/callback`);
  const env = { BASE_URL: base, PORT: String(port), OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: CLIENT.id, OIDC_NAME: 'Test IdP' };
  ({ app, lines } = await startLoggedApp(
    { after: (fn) => void clean.push(fn) },
    database.url,
    { ...env, OIDC_CLIENT_SECRET: CLIENT.secret },
    'info',
  ));
  await app.listen({ port, host: '127.0.0.1' });
  const setup = await app.inject({
    method: 'POST',
    url: '/auth/setup',
    payload: { name: 'Ada Lovelace', email: 'ada@example.com', password: PASSWORD },
  });
  assert.equal(setup.statusCode, 201, setup.body);
  await sql(`UPDATE people SET email_verified_at = now()`);
  // Members of the default workspace with Ada's password: Grace verified her address here, Eve never did.
  await withClient(database.url, async (client) => {
    const passwordHash = (await findPersonByEmail(client, 'ada@example.com'))?.passwordHash ?? null;
    for (const [name, email, emailVerified] of [
      ['Grace Hopper', 'grace@example.com', true],
      ['Eve', 'eve@example.com', false],
    ] as const)
      await addMembership(client, await createPerson(client, { name, email, passwordHash, emailVerified }), DEFAULT_WORKSPACE_ID, 'member');
    await createWorkspace(client, 'Acme');
  });
  await sql(`UPDATE workspaces SET join_domain = 'acme.test' WHERE name = 'Acme'`);
  const accounts: [string, string, boolean][] = [
    ['ada', 'ada@example.com', true],
    ['nia', 'nia@acme.test', true],
    ['sam', 'sam@elsewhere.test', true],
    ['uma', 'uma@acme.test', false],
    ['eve', 'eve@example.com', true],
    ['eve-2', 'eve@example.com', true],
    ['grace', 'grace@example.com', true],
    ['kim', 'kim@acme.test', true],
  ];
  for (const [login, email, emailVerified] of accounts)
    provider.accounts.set(login, { email, emailVerified, name: `${login} at the provider` });
});
after(async () => {
  for (const fn of clean.toReversed()) await fn();
  await provider?.close();
  await database?.drop();
});

const cookiesOf = (res: LightMyRequestResponse): string[] => [res.headers['set-cookie'] ?? []].flat();
const cookieValue = (res: LightMyRequestResponse, name: string) =>
  cookiesOf(res)
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);

/** GET /auth/sso/start: the provider's authorization URL and the sealed state cookie. */
async function begin(next?: string, on: FastifyInstance = app) {
  const res = await on.inject({ url: `/auth/sso/start${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}` });
  assert.equal(res.statusCode, 302, res.body);
  return { location: String(res.headers.location), sealed: cookieValue(res, 'shortener_sso'), res };
}

/** The app's callback as the browser would open it, with `sealed` as its state cookie. */
async function callback(url: URL, sealed: string | undefined) {
  for (const name of ['code', 'state']) secrets.push(url.searchParams.get(name) ?? '');
  const headers = sealed === undefined ? {} : { cookie: `shortener_sso=${sealed}` };
  return app.inject({ url: `${url.pathname}${url.search}`, headers });
}

/** Where a callback sent the browser, and the error code it carries. */
function landing(res: LightMyRequestResponse) {
  assert.equal(res.statusCode, 302, res.body);
  const url = new URL(String(res.headers.location), base);
  return { path: url.pathname, error: url.searchParams.get('error'), session: cookieValue(res, 'shortener_session') };
}

/** A whole sign-in as `login`, from start to callback; `alter` changes the state cookie the callback carries. */
async function signIn(login: string, alter: (sealed: string | undefined) => string | undefined = (sealed) => sealed) {
  const started = await begin();
  const held = openState(KEY, started.sealed, Date.now());
  secrets.push(held?.nonce ?? '', held?.verifier ?? '');
  return landing(await callback(await provider.signIn(started.location, login), alter(started.sealed)));
}

const personByEmail = async (email: string) =>
  (await sql<{ id: string; password_hash: string | null }>('SELECT id, password_hash FROM people WHERE email = $1', [email]))[0];

describe('the flow', () => {
  test('/auth/options offers it by name; the start asks for a code with PKCE S256, state and nonce, sealed in a Lax cookie', async () => {
    const options = (await app.inject({ url: '/auth/options' })).json<{ sso: boolean; ssoName: string }>();
    assert.deepEqual([options.sso, options.ssoName], [true, 'Test IdP']);
    const { location, sealed, res } = await begin('/app/links?tag=a');
    const asked = new URL(location);
    assert.equal(asked.origin, provider.issuer);
    const params = Object.fromEntries(asked.searchParams);
    assert.equal(params['response_type'], 'code');
    assert.equal(params['client_id'], CLIENT.id);
    assert.equal(params['redirect_uri'], `${base}/auth/sso/callback`);
    assert.equal(params['scope'], 'openid email profile');
    assert.equal(params['code_challenge_method'], 'S256');
    assert.match(params['code_challenge'] ?? '', /^[\w-]{43}$/);
    const held = openState(KEY, sealed, Date.now());
    assert.ok(held !== undefined);
    assert.equal(params['state'], held.state);
    assert.equal(params['nonce'], held.nonce);
    assert.equal(held.next, '/app/links?tag=a');
    assert.ok(sealed !== undefined && !sealed.includes(held.state) && !sealed.includes(held.verifier), 'the cookie is opaque');
    const cookie = cookiesOf(res).find((c) => c.startsWith('shortener_sso=')) ?? '';
    for (const attribute of ['Max-Age=600', 'Path=/', 'HttpOnly', 'SameSite=Lax']) assert.ok(cookie.includes(attribute), cookie);
    for (const next of ['//evil.example/app/', 'https://evil.example/app/', '/app/sign-in', '/app/\\evil', '/docs'])
      assert.equal(openState(KEY, (await begin(next)).sealed, Date.now())?.next, '/app/', next);
  });

  test('an existing person is matched by verified email and linked; the session says sso; the audit says how', async () => {
    const landed = await signIn('ada');
    assert.deepEqual([landed.path, landed.error], ['/app/', null]);
    const session = await app.inject({ url: '/auth/session', headers: { cookie: `shortener_session=${landed.session}` } });
    assert.equal(session.json<{ person: { email: string } }>().person.email, 'ada@example.com');
    const ada = await personByEmail('ada@example.com');
    assert.ok(ada?.password_hash !== null, 'a verified address keeps its password');
    const methods = await sql<{ methods: string[] }>('SELECT methods FROM sessions WHERE person_id = $1 ORDER BY created_at', [ada?.id]);
    assert.deepEqual(
      methods.map((row) => row.methods),
      [['password'], ['sso']],
    );
    const linked = await sql<{ issuer: string; subject: string }>('SELECT issuer, subject FROM sso_identities WHERE person_id = $1', [
      ada?.id,
    ]);
    assert.deepEqual(linked, [{ issuer: provider.issuer, subject: 'ada' }]);
    const audit = await sql<{ after: object }>(`SELECT after FROM audit_log WHERE action = 'person.sign-in' ORDER BY id DESC LIMIT 1`);
    assert.deepEqual(audit[0]?.after, { via: 'sso', matched: 'email' });
    // Again: by the identity now.
    assert.equal((await signIn('ada')).error, null);
  });

  test('a new person of a domain a workspace takes is created, verified, without a password, and joins it', async () => {
    const landed = await signIn('nia');
    assert.equal(landed.error, null);
    const session = await app.inject({ url: '/auth/session', headers: { cookie: `shortener_session=${landed.session}` } });
    const body = session.json<{ workspace: { name: string }; person: { name: string; emailVerified: boolean } }>();
    assert.deepEqual([body.workspace.name, body.person.name, body.person.emailVerified], ['Acme', 'nia at the provider', true]);
    assert.equal((await personByEmail('nia@acme.test'))?.password_hash, null);
  });
});

describe('refusals', () => {
  test('the state: absent, altered, expired or another sign-in’s is SSO_STATE_INVALID, and signs nobody in', async () => {
    const first = await begin();
    const back = await provider.signIn(first.location, 'ada');
    const other = await begin();
    const held = openState(KEY, first.sealed, Date.now());
    assert.ok(held !== undefined && first.sealed !== undefined);
    const flipped = `${first.sealed.slice(0, 20)}${first.sealed[20] === 'A' ? 'B' : 'A'}${first.sealed.slice(21)}`;
    const expired = sealState(KEY, { ...held, expiresAt: Date.now() - 1 });
    for (const [what, sealed] of [
      ['absent', undefined],
      ['altered', flipped],
      ['expired', expired],
      ["another sign-in's", other.sealed],
      ['sealed with another key', sealState(deriveKey('another secret', 'sso-state'), held)],
    ] as const) {
      const res = await callback(back, sealed);
      assert.deepEqual(landing(res), { path: '/app/sign-in', error: 'SSO_STATE_INVALID', session: undefined }, what);
      assert.ok(
        cookiesOf(res).some((c) => c.startsWith('shortener_sso=;') && c.includes('Max-Age=0')),
        `${what}: the cookie is cleared`,
      );
    }
  });

  test('an ID token for another nonce is SSO_FAILED, audited without the code or a token', async () => {
    const landed = await signIn('ada', (sealed) => {
      const held = openState(KEY, sealed, Date.now());
      return held === undefined ? undefined : sealState(KEY, { ...held, nonce: 'a-nonce-the-provider-never-saw' });
    });
    assert.deepEqual(landed, { path: '/app/sign-in', error: 'SSO_FAILED', session: undefined });
    const audit = await sql<{ after: object }>(
      `SELECT after FROM audit_log WHERE action = 'person.sign-in-failed' ORDER BY id DESC LIMIT 1`,
    );
    assert.deepEqual(audit[0]?.after, { via: 'sso', code: 'SSO_FAILED' });
  });

  test('an email whose domain no workspace takes is SSO_EMAIL_DOMAIN_NOT_ACCEPTED; an unverified one SSO_EMAIL_UNVERIFIED; nobody is made', async () => {
    assert.equal((await signIn('sam')).error, 'SSO_EMAIL_DOMAIN_NOT_ACCEPTED');
    assert.equal((await signIn('uma')).error, 'SSO_EMAIL_UNVERIFIED');
    for (const email of ['sam@elsewhere.test', 'uma@acme.test']) assert.equal(await personByEmail(email), undefined, email);
    assert.deepEqual(await sql(`SELECT subject FROM sso_identities WHERE subject IN ('sam', 'uma')`), []);
  });

  test('an address never verified here is claimed: its password and sessions go; another identity of the provider for it is refused', async () => {
    const password = await app.inject({ method: 'POST', url: '/auth/sign-in', payload: { email: 'eve@example.com', password: PASSWORD } });
    assert.equal(password.statusCode, 200, password.body);
    assert.equal((await signIn('eve')).error, null);
    assert.equal((await personByEmail('eve@example.com'))?.password_hash, null);
    const stale = await app.inject({ url: '/auth/session', headers: { cookie: String(cookiesOf(password)[0]).split(';')[0] ?? '' } });
    assert.equal(errorCode(stale), 'SESSION_EXPIRED');
    assert.equal((await signIn('eve-2')).error, 'SSO_IDENTITY_CONFLICT');
  });
});

describe('the provider out of reach, and SSO not set up', () => {
  test('a provider that refuses connections, or does not answer within OIDC_TIMEOUT_MS, is SSO_UNAVAILABLE at once', async (t) => {
    // Takes connections and never answers; the client gives up, but keeps its socket: closed here.
    const held = new Set<Socket>();
    const silent: Server = createTcpServer((socket) => void held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => silent.close(() => resolve()) && held.forEach((socket) => socket.destroy())));
    const closed = await freePort();
    for (const [what, issuer, limitMs] of [
      ['refused', `http://127.0.0.1:${closed}`, 1000],
      ['silent', `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, 2000],
    ] as const) {
      const env = { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: CLIENT.id, OIDC_TIMEOUT_MS: '300' };
      const { app: other } = await startApp(t, database.url, env);
      const startedAt = performance.now();
      const res = await other.inject({ url: '/auth/sso/start' });
      const tookMs = performance.now() - startedAt;
      assert.equal(new URL(String(res.headers.location), base).searchParams.get('error'), 'SSO_UNAVAILABLE', what);
      assert.ok(tookMs < limitMs, `${what}: answered in ${Math.round(tookMs)} ms`);
    }
  });

  test('not set up: the options say so, the start and the callback say SSO_NOT_CONFIGURED, requireSso cannot be turned on', async (t) => {
    const { app: plain } = await startApp(t, database.url, { OIDC_ISSUER: provider.issuer });
    const options = (await plain.inject({ url: '/auth/options' })).json<{ sso: boolean; ssoName?: string }>();
    assert.deepEqual([options.sso, options.ssoName], [false, undefined]);
    for (const url of ['/auth/sso/start', '/auth/sso/callback?code=x&state=y'])
      assert.equal(new URL(String((await plain.inject({ url })).headers.location), base).searchParams.get('error'), 'SSO_NOT_CONFIGURED');
    const session = await plain.inject({ method: 'POST', url: '/auth/sign-in', payload: { email: 'ada@example.com', password: PASSWORD } });
    const csrf = session.json<{ csrfToken: string }>().csrfToken;
    const headers = { cookie: String(cookiesOf(session)[0]).split(';')[0] ?? '', 'x-csrf-token': csrf };
    const patch = await plain.inject({ method: 'PATCH', url: '/workspace', headers, payload: { requireSso: true } });
    assert.equal(patch.statusCode, 409);
    assert.equal(errorCode(patch), 'SSO_NOT_CONFIGURED');
  });
});

describe('a workspace that requires SSO', () => {
  test('turned on only from an SSO session; then a password session gets SSO_REQUIRED and an SSO session passes', async () => {
    const password = await app.inject({ method: 'POST', url: '/auth/sign-in', payload: { email: 'ada@example.com', password: PASSWORD } });
    const byPassword = {
      cookie: String(cookiesOf(password)[0]).split(';')[0] ?? '',
      'x-csrf-token': password.json<{ csrfToken: string }>().csrfToken,
    };
    const sso = (await signIn('ada')).session ?? '';
    const ssoSession = await app.inject({ url: '/auth/session', headers: { cookie: `shortener_session=${sso}` } });
    const bySso = { cookie: `shortener_session=${sso}`, 'x-csrf-token': ssoSession.json<{ csrfToken: string }>().csrfToken };
    assert.equal((await app.inject({ url: '/workspace', headers: byPassword })).json<{ canRequireSso: boolean }>().canRequireSso, false);
    assert.equal((await app.inject({ url: '/workspace', headers: bySso })).json<{ canRequireSso: boolean }>().canRequireSso, true);
    const refused = await app.inject({ method: 'PATCH', url: '/workspace', headers: byPassword, payload: { requireSso: true } });
    assert.equal(refused.statusCode, 409);
    assert.equal(errorCode(refused), 'SSO_SIGN_IN_FIRST');
    const on = await app.inject({ method: 'PATCH', url: '/workspace', headers: bySso, payload: { requireSso: true } });
    assert.equal(on.json<{ requireSso: boolean }>().requireSso, true, on.body);

    const blocked = await app.inject({ url: '/links', headers: byPassword });
    assert.equal(blocked.statusCode, 403);
    assert.equal(errorCode(blocked), 'SSO_REQUIRED');
    assert.equal((await app.inject({ url: '/auth/session', headers: byPassword })).json<{ pending: string }>().pending, 'SSO_REQUIRED');
    assert.equal((await app.inject({ url: '/links', headers: bySso })).statusCode, 200);
    const off = await app.inject({ method: 'PATCH', url: '/workspace', headers: bySso, payload: { requireSso: false } });
    assert.equal(off.json<{ requireSso: boolean }>().requireSso, false);
  });
});

describe('in a browser', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());

  test('the sign-in page offers the provider; its login brings the person back to the dashboard, signed in; errors are explained', async (t) => {
    const desk = await watchedPage(browser, { width: 1280, height: 800 });
    t.after(() => desk.context.close());
    const phone = await watchedPage(browser, { width: 375, height: 740 });
    t.after(() => phone.context.close());

    // Grace, a member already, on a desktop: matched by her verified address, back where she was going.
    const { page } = desk;
    await page.goto(`${base}/app/analytics`);
    const button = page.getByRole('link', { name: 'Sign in with Test IdP' });
    await button.waitFor();
    await look(page, 'sso-01-sign-in');
    await provider.signInInBrowser(page, button, 'grace');
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/analytics', 'back where the sign-in began');
    await page.locator('.who').getByText('Grace Hopper').waitFor();
    assert.deepEqual(
      await sql('SELECT subject FROM sso_identities WHERE person_id = $1', [(await personByEmail('grace@example.com'))?.id]),
      [{ subject: 'grace' }],
    );

    // Kim, new, on a phone: made a member of Acme, the workspace that takes acme.test.
    await phone.page.goto(`${base}/app/`);
    const phoneButton = phone.page.getByRole('link', { name: 'Sign in with Test IdP' });
    await phoneButton.waitFor();
    await look(phone.page, 'sso-02-phone-sign-in');
    await provider.signInInBrowser(phone.page, phoneButton, 'kim');
    await phone.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    // Signed in: the name is in the header, behind the phone's menu.
    await phone.page.locator('.who').getByText('kim at the provider').waitFor({ state: 'attached' });
    const kim = await sql<{ name: string }>(
      `SELECT w.name FROM memberships m JOIN workspaces w ON w.id = m.workspace_id JOIN people p ON p.id = m.person_id WHERE p.email = $1`,
      ['kim@acme.test'],
    );
    assert.deepEqual(kim, [{ name: 'Acme' }]);

    // A refusal comes back to the sign-in page, which says what happened and what to do.
    await unfoldMenu(phone.page);
    await phone.page.getByRole('button', { name: 'Sign out' }).click();
    await phone.page.goto(`${base}/app/sign-in?error=SSO_EMAIL_DOMAIN_NOT_ACCEPTED`);
    await phone.page.getByRole('alert').filter({ hasText: 'ask an admin' }).waitFor();
    await look(phone.page, 'sso-03-phone-sign-in-error');
    assert.deepEqual(desk.problems, [], 'no console error and no CSP violation on the desktop');
    assert.deepEqual(phone.problems, [], 'none on the phone');
  });

  test('workspace settings: an admin signed in by SSO requires it; signed in by password, the box says why it cannot', async (t) => {
    const desk = await watchedPage(browser, { width: 1280, height: 800 });
    t.after(() => desk.context.close());
    const { page } = desk;
    await page.goto(`${base}/app/workspace`);
    await provider.signInInBrowser(page, page.getByRole('link', { name: 'Sign in with Test IdP' }), 'ada');
    await page.getByRole('heading', { name: 'Workspace settings' }).waitFor();
    const box = page.getByLabel('Require single sign-on');
    assert.equal(await box.isEnabled(), true);
    await box.check();
    await page.getByRole('status').filter({ hasText: 'Single sign-on is now required' }).waitFor();
    await look(page, 'sso-04-settings-required');
    await box.uncheck();
    await page.getByRole('status').filter({ hasText: 'no longer required' }).waitFor();

    const phone = await watchedPage(browser, { width: 375, height: 740 });
    t.after(() => phone.context.close());
    await phone.page.goto(`${base}/app/workspace`);
    await phone.page.getByLabel('Email address').fill('ada@example.com');
    await phone.page.getByLabel('Password').fill(PASSWORD);
    await phone.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await phone.page.getByRole('heading', { name: 'Workspace settings' }).waitFor();
    assert.equal(await phone.page.getByLabel('Require single sign-on').isDisabled(), true);
    await phone.page.getByText('sign out and sign in with Test IdP').waitFor();
    await look(phone.page, 'sso-05-phone-settings-password');
    assert.deepEqual([...desk.problems, ...phone.problems], []);
  });
});

test('the log says what failed by its code, and holds no client secret, code, state, nonce or verifier', () => {
  const text = JSON.stringify(lines);
  assert.ok(lines.some((line) => line.msg === 'single sign-on refused' && line['code'] === 'SSO_STATE_INVALID'));
  for (const secret of secrets.filter((s) => s.length >= 8)) assert.ok(!text.includes(secret), 'a secret in the log');
});
