// Second factors over the API, on a real Postgres, with the codes of the authenticator app computed
// here (otpauth) as a phone would: an app set up and confirmed with a code, its secret sealed in the
// database; a password sign-in then asks for the second step, which a code completes once (the same
// code again is refused); a recovery code works once; wrong codes are limited per account and per
// client; a workspace that requires a second factor holds a password-only session to its profile
// until a factor is added; nothing secret reaches the log. Passkeys are tested in a browser
// (test/dashboard/passkeys.test.ts); here, only where they are not offered.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { errorCode, startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { ERROR_LEVEL, startLoggedApp, type LogLine } from '../helpers/logs.ts';

let database: TestDatabase;
const clean: (() => Promise<void>)[] = [];
let app: FastifyInstance;
let lines: LogLine[];

before(async () => {
  database = await createTestDatabase('second_factors');
  ({ app, lines } = await startLoggedApp(
    { after: (fn) => void clean.push(fn) },
    database.url,
    { SIGN_IN_ACCOUNT_MAX_FAILURES: '5', SIGN_IN_MAX_FAILURES: '6', LOG_LEVEL: 'trace' },
    'trace',
  ));
});
after(async () => {
  for (const fn of clean.toReversed()) await fn();
  await database.drop();
});

interface Signed {
  cookie: string;
  csrf: string;
}
interface SessionBody {
  csrfToken: string;
  person: { id: number } | null;
  pending: string | null;
}
interface Step {
  secondFactor: { ticket: string; methods: string[]; expiresAt: string };
}

const PASSWORD = 'a long and unusual passphrase';
/** Each sign-in from an address of its own: the per-client budget is SIGN_IN_MAX_FAILURES=6. */
let addresses = 0;
const freshAddress = () => `198.51.100.${++addresses}`;

const cookieOf = (res: LightMyRequestResponse): string => String(res.headers['set-cookie']).split(';')[0] ?? '';
const as = (who: Signed) => ({ cookie: who.cookie, 'x-csrf-token': who.csrf });

function signed(res: LightMyRequestResponse): Signed {
  assert.equal(res.statusCode, 200, res.body);
  return { cookie: cookieOf(res), csrf: res.json<SessionBody>().csrfToken };
}

function passwordStep(email: string, remoteAddress = freshAddress()) {
  return app.inject({ method: 'POST', url: '/auth/sign-in', payload: { email, password: PASSWORD }, remoteAddress });
}

function secondStep(payload: Record<string, unknown>, remoteAddress = freshAddress()) {
  return app.inject({ method: 'POST', url: '/auth/sign-in/second-factor', payload, remoteAddress });
}

async function ticketOf(email: string): Promise<Step['secondFactor']> {
  const res = await passwordStep(email);
  assert.equal(res.statusCode, 200, res.body);
  const step = res.json<Step>();
  assert.ok(step.secondFactor, `a second step for ${email}: ${res.body}`);
  assert.equal(res.headers['set-cookie'], undefined, 'no session before the second step');
  return step.secondFactor;
}

/** The code an app shows `steps` 30-second steps from now. */
const codeOf = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: Date.now() + steps * 30_000 });

async function methodsOf(who: Signed): Promise<string[]> {
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ methods: string[] }>('SELECT methods FROM sessions WHERE csrf_token = $1', [who.csrf]),
  );
  return rows[0]?.methods ?? [];
}

async function auditActions(who: Signed): Promise<string[]> {
  const res = await app.inject({ url: '/audit?action=person.*', headers: as(who) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ entries: { action: string }[] }>().entries.map((entry) => entry.action);
}

/** Sets up the app of `who`: its base32 secret and recovery codes. */
async function enrolTotp(who: Signed): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await app.inject({ method: 'POST', url: '/auth/totp', headers: as(who) });
  assert.equal(started.statusCode, 201, started.body);
  const { secret } = started.json<{ secret: string }>();
  const confirmed = await app.inject({ method: 'POST', url: '/auth/totp/confirm', headers: as(who), payload: { code: codeOf(secret) } });
  assert.equal(confirmed.statusCode, 200, confirmed.body);
  return { secret, recoveryCodes: confirmed.json<{ recoveryCodes: string[] }>().recoveryCodes };
}

let ada: Signed;
let adaSecret: string;
let adaCodes: string[];
const secrets: string[] = [];

describe('an authenticator app', () => {
  test('set up: a secret, its otpauth URI and QR code; a wrong code does not confirm it, a right one does, with ten recovery codes', async () => {
    const setUp = await app.inject({
      method: 'POST',
      url: '/auth/setup',
      payload: { name: 'Ada Lovelace', email: 'ada@example.com', password: PASSWORD },
    });
    assert.equal(setUp.statusCode, 201, setUp.body);
    ada = { cookie: cookieOf(setUp), csrf: setUp.json<SessionBody>().csrfToken };
    const none = await app.inject({ url: '/auth/second-factors', headers: as(ada) });
    assert.deepEqual(none.json(), {
      passkeysAvailable: true,
      passkeys: [],
      totp: { enabled: false, pending: false },
      recoveryCodes: { remaining: 0 },
      required: false,
    });
    const noCodes = await app.inject({ method: 'POST', url: '/auth/recovery-codes', headers: as(ada) });
    assert.equal(errorCode(noCodes), 'SECOND_FACTOR_NONE');

    const started = await app.inject({ method: 'POST', url: '/auth/totp', headers: as(ada) });
    assert.equal(started.statusCode, 201, started.body);
    const enrolment = started.json<{ secret: string; uri: string; qrSvg: string }>();
    adaSecret = enrolment.secret;
    secrets.push(adaSecret);
    assert.match(adaSecret, /^[A-Z2-7]{32}$/);
    const uri = new URL(enrolment.uri);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), adaSecret);
    assert.equal(uri.searchParams.get('issuer'), 'shortener');
    assert.match(decodeURIComponent(uri.pathname), /ada@example\.com/);
    assert.match(enrolment.qrSvg, /^<svg [^>]*>.*<\/svg>\s*$/s);
    assert.equal(started.headers['cache-control'], 'no-store');

    const wrong = await app.inject({ method: 'POST', url: '/auth/totp/confirm', headers: as(ada), payload: { code: '000000' } });
    assert.equal(wrong.statusCode, 403);
    assert.equal(errorCode(wrong), 'TOTP_CODE_WRONG');
    const pending = await app.inject({ url: '/auth/second-factors', headers: as(ada) });
    assert.deepEqual(pending.json<{ totp: unknown }>().totp, { enabled: false, pending: true });

    const confirmed = await app.inject({
      method: 'POST',
      url: '/auth/totp/confirm',
      headers: as(ada),
      payload: { code: codeOf(adaSecret) },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    adaCodes = confirmed.json<{ recoveryCodes: string[] }>().recoveryCodes;
    assert.equal(adaCodes.length, 10);
    assert.equal(new Set(adaCodes).size, 10);
    for (const code of adaCodes) assert.match(code, /^[0-9a-z]{5}-[0-9a-z]{5}$/);
    assert.deepEqual(await methodsOf(ada), ['password', 'totp'], 'the session that proved the app counts it');

    // Sealed at rest: neither the base32 secret nor its bytes are in the row; the codes are hashes.
    const { rows } = await withClient(database.url, (client) =>
      client.query<{ secret: Buffer; pending_secret: Buffer | null }>('SELECT secret, pending_secret FROM totp_secrets'),
    );
    const raw = Buffer.from(Secret.fromBase32(adaSecret).bytes);
    assert.equal(rows[0]?.pending_secret, null);
    assert.ok(rows[0] !== undefined && !rows[0].secret.includes(raw) && !rows[0].secret.toString('latin1').includes(adaSecret));
    const stored = await withClient(database.url, (client) => client.query<{ hash: Buffer }>('SELECT hash FROM recovery_codes'));
    assert.equal(stored.rows.length, 10);
    assert.ok(stored.rows.every((row) => row.hash.length === 32 && !adaCodes.some((code) => row.hash.toString().includes(code))));
    const actions = await auditActions(ada);
    assert.ok(actions.includes('person.totp-enable') && actions.includes('person.recovery-codes'), actions.join(', '));
  });

  test('sign-in: the password asks for the second step; a code completes it once, and the same code again is refused', async () => {
    const first = await ticketOf('ada@example.com');
    assert.deepEqual(first.methods, ['totp', 'recovery-code']);
    assert.ok(Date.parse(first.expiresAt) - Date.now() <= 5 * 60_000);
    // The confirmation took this step's code: the app's next one (within the step of tolerance).
    const code = codeOf(adaSecret, 1);
    const done = await secondStep({ ticket: first.ticket, code: code.replace(/^(\d{3})/, '$1 ') });
    const session = signed(done);
    assert.deepEqual(await methodsOf(session), ['password', 'totp']);
    const again = await secondStep({ ticket: first.ticket, code });
    assert.equal(again.statusCode, 401);
    assert.equal(errorCode(again), 'SECOND_FACTOR_TICKET_INVALID', 'a ticket is spent by the step that succeeds');

    const second = await ticketOf('ada@example.com');
    const replayed = await secondStep({ ticket: second.ticket, code });
    assert.equal(replayed.statusCode, 401);
    assert.equal(errorCode(replayed), 'SECOND_FACTOR_INVALID', 'a code works once');
    const actions = await auditActions(ada);
    assert.ok(actions.includes('person.sign-in') && actions.includes('person.sign-in-failed'));
    const unknown = await secondStep({ ticket: 'x'.repeat(43), code: codeOf(adaSecret) });
    assert.equal(errorCode(unknown), 'SECOND_FACTOR_TICKET_INVALID');
    const malformed = await secondStep({ ticket: second.ticket, code: codeOf(adaSecret), recoveryCode: adaCodes[0] });
    assert.equal(malformed.statusCode, 400, 'one proof at a time');
  });

  test('a recovery code signs in once, typed loosely; it is then spent', async () => {
    const code = adaCodes[0] ?? '';
    const first = await ticketOf('ada@example.com');
    const session = signed(await secondStep({ ticket: first.ticket, recoveryCode: ` ${code.toUpperCase().replace('-', ' ')} ` }));
    assert.deepEqual(await methodsOf(session), ['password', 'recovery-code']);
    const summary = await app.inject({ url: '/auth/second-factors', headers: as(session) });
    assert.equal(summary.json<{ recoveryCodes: { remaining: number } }>().recoveryCodes.remaining, 9);
    const second = await ticketOf('ada@example.com');
    const spent = await secondStep({ ticket: second.ticket, recoveryCode: code });
    assert.equal(errorCode(spent), 'SECOND_FACTOR_INVALID');

    // New codes replace the old ones, all of them.
    const made = await app.inject({ method: 'POST', url: '/auth/recovery-codes', headers: as(session) });
    assert.equal(made.statusCode, 201, made.body);
    const fresh = made.json<{ codes: string[] }>().codes;
    const third = await ticketOf('ada@example.com');
    assert.equal(errorCode(await secondStep({ ticket: third.ticket, recoveryCode: adaCodes[1] ?? '' })), 'SECOND_FACTOR_INVALID');
    signed(await secondStep({ ticket: third.ticket, recoveryCode: fresh[0] ?? '' }));
    adaCodes = fresh.slice(1);
  });

  test('wrong codes are limited per account, from any address, and per client address, whatever the account (429, Retry-After)', async () => {
    const lim = await newMember('lim@example.com');
    const { secret, recoveryCodes } = await enrolTotp(lim);
    secrets.push(secret);
    const { ticket } = await ticketOf('lim@example.com');
    // SIGN_IN_ACCOUNT_MAX_FAILURES=5: five wrong codes from five addresses use up the account's budget.
    for (const wrong of ['111111', '222222', '333333', '444444']) assert.equal((await secondStep({ ticket, code: wrong })).statusCode, 401);
    assert.equal((await secondStep({ ticket, recoveryCode: 'aaaaa-aaaaa' })).statusCode, 401, 'recovery codes share the budget');
    const limited = await secondStep({ ticket, code: codeOf(secret, 1) });
    assert.equal(limited.statusCode, 429);
    assert.equal(errorCode(limited), 'SECOND_FACTOR_RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(errorCode(await secondStep({ ticket, recoveryCode: recoveryCodes[0] ?? '' })), 'SECOND_FACTOR_RATE_LIMITED');

    // SIGN_IN_MAX_FAILURES=6 per client: its wrong passwords and wrong codes of any account count together.
    const client = freshAddress();
    for (let i = 0; i < 6; i++) {
      const payload = { email: `nobody${i}@example.com`, password: 'wrong pass' };
      assert.equal((await app.inject({ method: 'POST', url: '/auth/sign-in', payload, remoteAddress: client })).statusCode, 401);
    }
    const other = await ticketOf('ada@example.com');
    const fromThere = await secondStep({ ticket: other.ticket, code: codeOf(adaSecret, 1) }, client);
    assert.equal(fromThere.statusCode, 429);
    assert.equal(errorCode(fromThere), 'SECOND_FACTOR_RATE_LIMITED');
  });
});

describe('a workspace that requires a second factor', () => {
  let mo: Signed;
  let moSecret: string;

  test('turning it on needs a session signed in with a second factor; a member without one is held to their profile until they add one', async () => {
    const member = await newMember('mo@example.com');
    const refused = await app.inject({ method: 'PATCH', url: '/workspace', headers: as(member), payload: { requireSecondFactor: true } });
    assert.equal(refused.statusCode, 403, 'a member is no admin');

    const settings = await app.inject({ url: '/workspace', headers: as(ada) });
    assert.equal(settings.json<{ canRequireSecondFactor: boolean }>().canRequireSecondFactor, true);
    const on = await app.inject({ method: 'PATCH', url: '/workspace', headers: as(ada), payload: { requireSecondFactor: true } });
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(on.json<{ requireSecondFactor: boolean }>().requireSecondFactor, true);

    // Mo has no factor: the password signs in, but the session is pending.
    const signIn = await passwordStepWithoutFactor('mo@example.com');
    assert.equal(signIn.json<SessionBody>().pending, 'SECOND_FACTOR_REQUIRED', 'the sign-in says so at once');
    mo = signed(signIn);
    const session = await app.inject({ url: '/auth/session', headers: as(mo) });
    assert.equal(session.json<SessionBody>().pending, 'SECOND_FACTOR_REQUIRED');
    const links = await app.inject({ url: '/links', headers: as(mo) });
    assert.equal(links.statusCode, 403);
    assert.equal(errorCode(links), 'SECOND_FACTOR_REQUIRED');
    const factors = await app.inject({ url: '/auth/second-factors', headers: as(mo) });
    assert.equal(factors.json<{ required: boolean }>().required, true);

    // Adding the app meets the requirement in this very session.
    ({ secret: moSecret } = await enrolTotp(mo));
    secrets.push(moSecret);
    const now = await app.inject({ url: '/auth/session', headers: as(mo) });
    assert.equal(now.json<SessionBody>().pending, null);
    assert.equal((await app.inject({ url: '/links', headers: as(mo) })).statusCode, 200);

    // And it is the factor of Mo's next sign-in.
    const { ticket, methods } = await ticketOf('mo@example.com');
    assert.deepEqual(methods, ['totp', 'recovery-code']);
    const next = signed(await secondStep({ ticket, code: codeOf(moSecret, 1) }));
    assert.equal((await app.inject({ url: '/auth/session', headers: as(next) })).json<SessionBody>().pending, null);
  });

  test('the last factor stays while a workspace requires one; switching the app off takes a code or the password', async () => {
    const last = await app.inject({ method: 'POST', url: '/auth/totp/disable', headers: as(mo), payload: { password: PASSWORD } });
    assert.equal(last.statusCode, 409);
    assert.equal(errorCode(last), 'SECOND_FACTOR_LAST');
    const wrong = await app.inject({ method: 'POST', url: '/auth/totp/disable', headers: as(mo), payload: { password: 'not it at all' } });
    assert.equal(errorCode(wrong), 'CURRENT_PASSWORD_WRONG');
    const off = await app.inject({ method: 'PATCH', url: '/workspace', headers: as(ada), payload: { requireSecondFactor: false } });
    assert.equal(off.statusCode, 200, off.body);
    const badCode = await app.inject({ method: 'POST', url: '/auth/totp/disable', headers: as(mo), payload: { code: '123456' } });
    assert.equal(errorCode(badCode), 'TOTP_CODE_WRONG');
    const disabled = await app.inject({ method: 'POST', url: '/auth/totp/disable', headers: as(mo), payload: { password: PASSWORD } });
    assert.equal(disabled.statusCode, 204, disabled.body);
    const summary = await app.inject({ url: '/auth/second-factors', headers: as(mo) });
    assert.deepEqual(summary.json<{ totp: unknown; recoveryCodes: unknown }>().totp, { enabled: false, pending: false });
    assert.deepEqual(summary.json<{ recoveryCodes: unknown }>().recoveryCodes, { remaining: 0 }, 'no codes without a factor');
    signed(await passwordStepWithoutFactor('mo@example.com'));
    const again = await app.inject({ method: 'POST', url: '/auth/totp/disable', headers: as(mo), payload: { password: PASSWORD } });
    assert.equal(errorCode(again), 'TOTP_NOT_ENABLED');
    assert.ok((await auditActions(ada)).includes('person.totp-disable'));
  });

  test('a password-only session of a person may not turn the requirement on (409 SECOND_FACTOR_FIRST)', async () => {
    const moAdmin = await withClient(database.url, (client) =>
      client.query(
        "UPDATE api_keys SET role = 'admin' WHERE id = (SELECT key_id FROM memberships m JOIN people p ON p.id = m.person_id WHERE p.email = 'mo@example.com')",
      ),
    );
    assert.equal(moAdmin.rowCount, 1);
    const moByPassword = signed(await passwordStepWithoutFactor('mo@example.com'));
    const settings = await app.inject({ url: '/workspace', headers: as(moByPassword) });
    assert.equal(settings.json<{ canRequireSecondFactor: boolean }>().canRequireSecondFactor, false);
    const refused = await app.inject({
      method: 'PATCH',
      url: '/workspace',
      headers: as(moByPassword),
      payload: { requireSecondFactor: true },
    });
    assert.equal(refused.statusCode, 409);
    assert.equal(errorCode(refused), 'SECOND_FACTOR_FIRST');
  });
});

test('nothing secret reaches the log: no app secret, code, recovery code or ticket', () => {
  const text = JSON.stringify(lines);
  assert.ok(lines.length > 0);
  assert.deepEqual(
    lines.filter((line) => line.level >= ERROR_LEVEL),
    [],
    'no error (a 500 logs its request)',
  );
  for (const secret of secrets) assert.ok(!text.includes(secret), 'an app secret in the log');
  for (const code of adaCodes) assert.ok(!text.includes(code), 'a recovery code in the log');
  assert.ok(!/"ticket"|"recoveryCode"|"code":"\d{6}"/.test(text), 'a body in the log');
});

test('where BASE_URL is not a secure origin, passkeys are not offered, and their routes say why', async (t) => {
  const { app: plain } = await startApp(t, database.url, { BASE_URL: 'http://sho.rt' });
  assert.equal((await plain.inject({ url: '/auth/options' })).json<{ passkeys: boolean }>().passkeys, false);
  const options = await plain.inject({ method: 'POST', url: '/auth/passkey/options', payload: {} });
  assert.equal(options.statusCode, 409);
  assert.equal(errorCode(options), 'PASSKEYS_UNAVAILABLE');
  assert.equal((await app.inject({ url: '/auth/options' })).json<{ passkeys: boolean }>().passkeys, true);
  // Where they are offered: the options of a sign-in with a passkey alone ({}: no ticket), any passkey of the service.
  const res = await app.inject({ method: 'POST', url: '/auth/passkey/options', payload: {} });
  assert.equal(res.statusCode, 200, res.body);
  const { options: given } = res.json<{ options: { challenge: string; rpId: string; allowCredentials?: unknown[] } }>();
  assert.equal(given.rpId, 'sho.rt');
  assert.match(given.challenge, /^[\w-]{43}$/);
  assert.deepEqual(given.allowCredentials ?? [], []);
  const badTicket = await app.inject({ method: 'POST', url: '/auth/passkey/options', payload: { ticket: 'x'.repeat(43) } });
  assert.equal(errorCode(badTicket), 'SECOND_FACTOR_TICKET_INVALID');
});

/** A person without a factor signs in with the password alone. */
async function passwordStepWithoutFactor(email: string) {
  const res = await passwordStep(email);
  assert.equal(res.json<Partial<Step>>().secondFactor, undefined, res.body);
  return res;
}

/** A new member of the default workspace, invited by Ada (no mail: the link is handed over), signed in. */
async function newMember(email: string): Promise<Signed> {
  const invited = await app.inject({ method: 'POST', url: '/invitations', headers: as(ada), payload: { email, role: 'member' } });
  assert.equal(invited.statusCode, 201, invited.body);
  const token = new URL(invited.json<{ url: string }>().url).searchParams.get('token') ?? '';
  const accepted = await app.inject({
    method: 'POST',
    url: `/auth/invitations/${token}/accept`,
    payload: { name: email, password: PASSWORD },
  });
  assert.equal(accepted.statusCode, 201, accepted.body);
  return { cookie: cookieOf(accepted), csrf: accepted.json<SessionBody>().csrfToken };
}
