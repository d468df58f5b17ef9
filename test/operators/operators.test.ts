// Abuse reports and the deployment's operators (docs/operators.md), over the API on a real
// Postgres, with redirects over real sockets through the fast path: the public form on the short
// domain (prefilled from ?code=, refused politely for what is no link, limited per client), the
// queue grouping a link's reports, each action's effect on the redirects and creates, a
// workspace's suspension and its lifting, who may see the queue, and the audit entries.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { REPORTS_PER_CLIENT } from '../../src/operators/report-routes.ts';
import { bearer, errorCode, startApp, testConfig } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { compileCacheEnv } from '../helpers/server-process.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let app: FastifyInstance;
let pool: pg.Pool;
const clean: (() => Promise<void>)[] = [];
let operator: { cookie: string; 'x-csrf-token': string };
let personId: number;
let spam: { id: number; keys: Record<'admin', CreatedKey> };
let fine: { id: number; keys: Record<'admin', CreatedKey> };

before(async () => {
  database = await createTestDatabase('operators');
  ({ app, pool } = await startApp({ after: (fn) => void clean.push(fn) }, database.url, { DOMAIN_VERIFICATION: 'false' }));
  // The first person set up is an operator.
  const setup = await app.inject({
    method: 'POST',
    url: '/auth/setup',
    payload: { name: 'Olga', email: 'olga@example.com', password: 'a long and unusual passphrase' },
  });
  assert.equal(setup.statusCode, 201, setup.body);
  const body = setup.json<{ csrfToken: string; person: { id: number } }>();
  operator = { cookie: String(setup.headers['set-cookie']).split(';')[0] ?? '', 'x-csrf-token': body.csrfToken };
  personId = body.person.id;
  spam = await workspaceWith(database.url, 'Spam Co', { admin: 'admin' });
  fine = await workspaceWith(database.url, 'Fine Co', { admin: 'admin' });
});
after(async () => {
  for (const fn of clean.toReversed()) await fn();
  await database.drop();
});

async function linkOf(key: CreatedKey, url: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/links', headers: bearer(key), payload: { url } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

const status = async (code: string) => (await app.inject({ url: `/${code}` })).statusCode;

/** The form as a browser loads it, and its token. */
async function form(query = '', remoteAddress = '198.51.100.7') {
  const res = await app.inject({ url: `/report${query}`, remoteAddress });
  assert.equal(res.statusCode, 200, res.body);
  const token = /name="token" value="([^"]+)"/.exec(res.body)?.[1];
  assert.ok(token !== undefined, 'the form carries a token');
  return { res, token };
}

async function report(fields: Record<string, string>, remoteAddress = '198.51.100.7') {
  const { token } = await form('', remoteAddress);
  return app.inject({
    method: 'POST',
    url: '/report',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token, ...fields }).toString(),
  });
}

async function reported(code: string, reason = 'phishing', remoteAddress = '198.51.100.7') {
  const res = await report({ url: `https://sho.rt/${code}`, reason, message: 'It asked for my bank password' }, remoteAddress);
  assert.equal(res.statusCode, 201, res.body);
}

interface Group {
  id: number;
  code: string;
  shortUrl: string;
  count: number;
  reasons: string[];
  status: string;
  action: string | null;
  link: { url: string; workspace: { id: number; name: string } } | null;
}

async function queue(query = ''): Promise<Group[]> {
  const res = await app.inject({ url: `/operator/reports${query}`, headers: operator });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ groups: Group[] }>().groups;
}

async function act(code: string, action: string) {
  const group = (await queue()).find((g) => g.code === code);
  assert.ok(group !== undefined, `${code} is in the queue`);
  const res = await app.inject({ method: 'POST', url: `/operator/reports/${group.id}/action`, headers: operator, payload: { action } });
  assert.equal(res.statusCode, 204, res.body);
}

async function audit(action: string) {
  const { rows } = await pool.query<{ workspace_id: string; actor_person_id: string; target_id: string; after: Record<string, unknown> }>(
    'SELECT workspace_id, actor_person_id, target_id, after FROM audit_log WHERE action = $1 ORDER BY id',
    [action],
  );
  return rows;
}

describe('the report form', () => {
  test('GET /report?code= prefills the short URL on the form, an accessible page without script', async () => {
    const code = await linkOf(fine.keys.admin, 'https://fine.example/a');
    const { res } = await form(`?code=${code}`);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, new RegExp(`<input type="url" id="url" name="url" required maxlength="2100" value="https://sho.rt/${code}"`));
    assert.match(res.body, /<label for="url">/);
    assert.match(res.body, /<legend>What is wrong with it<\/legend>/);
    assert.doesNotMatch(res.body, /<script/);
    assert.match(String(res.headers['content-security-policy']), /form-action 'self'/);
    // Over a real socket, through the fast path: /report is a reserved word, never looked up as a code.
    const overSocket = await app.inject({ url: `/report?code=${code}` });
    assert.equal(overSocket.statusCode, 200, overSocket.body);
    assert.match(overSocket.body, /<h1>Report a link<\/h1>/);
    const byUrl = await form('?url=https%3A%2F%2Fsho.rt%2Fabc');
    assert.match(byUrl.res.body, /value="https:\/\/sho.rt\/abc"/);
  });

  test('on a branded short domain too: ?code= names that domain’s link, its report is taken; the operators’ API is not there', async () => {
    const host = 'go.fine-co.example';
    const added = await app.inject({ method: 'POST', url: '/domains', headers: bearer(fine.keys.admin), payload: { host } });
    assert.equal(added.statusCode, 201, added.body);
    const made = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(fine.keys.admin),
      payload: { url: 'https://branded-target.example/', domain: host },
    });
    assert.equal(made.statusCode, 201, made.body);
    const code = made.json<{ code: string }>().code;
    await app.hosts.refresh();
    const page = await app.inject({ url: `/report?code=${code}`, headers: { host } });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, new RegExp(`value="https://${host}/${code}"`));
    const token = /name="token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const sent = await app.inject({
      method: 'POST',
      url: '/report',
      remoteAddress: '198.51.100.40',
      headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, url: `https://${host}/${code}`, reason: 'malware' }).toString(),
    });
    assert.equal(sent.statusCode, 201, sent.body);
    const { rows } = await pool.query('SELECT d.host FROM abuse_reports r JOIN domains d ON d.id = r.domain_id WHERE r.code = $1', [code]);
    assert.deepEqual(rows, [{ host }]);
    // The same code on the default domain is no link: a branded link is named by its own host.
    const elsewhere = await report({ url: `https://sho.rt/${code}`, reason: 'spam' }, '198.51.100.41');
    assert.equal(elsewhere.statusCode, 404);
    assert.equal(errorCode(await app.inject({ url: '/operator/reports', headers: { host, ...operator } })), 'ROUTE_NOT_ON_HOST');
  });

  test('a report of a live link is taken and stored without the client address; the same link twice is one group of two', async () => {
    const code = await linkOf(fine.keys.admin, 'https://twice-reported.example/');
    await reported(code, 'phishing', '198.51.100.20');
    const res = await report({ url: `sho.rt/${code}`, reason: 'spam', email: 'Reporter@Example.com' }, '198.51.100.21');
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.body, /<h1>Thank you for your report<\/h1>/);
    const { rows } = await pool.query('SELECT * FROM abuse_reports WHERE code = $1 ORDER BY id', [code]);
    assert.equal(rows.length, 2);
    assert.equal(rows[1].reporter_email, 'reporter@example.com');
    assert.ok(!JSON.stringify(rows).includes('198.51.100'), 'no client address is stored');
    const group = (await queue()).find((g) => g.code === code);
    assert.equal(group?.count, 2);
    assert.deepEqual(group?.reasons, ['phishing', 'spam']);
    assert.equal(group?.shortUrl, `https://sho.rt/${code}`);
    assert.equal(group?.link?.workspace.name, 'Fine Co');
  });

  test('what is no short link of this deployment, a missing reason or token: the form again, with what to fix', async () => {
    for (const url of ['https://elsewhere.example/abcde', 'https://sho.rt/nosuchcode', 'not a url at all']) {
      const res = await report({ url, reason: 'spam' }, '198.51.100.30');
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.headers['x-error-code'], 'REPORTED_LINK_NOT_FOUND');
      assert.match(res.body, /role="alert">This is not a short link of this service/);
      assert.match(res.body, /aria-invalid="true"/);
    }
    const code = await linkOf(fine.keys.admin, 'https://reasonless.example/');
    const noReason = await report({ url: `https://sho.rt/${code}` }, '198.51.100.30');
    assert.equal(noReason.statusCode, 400);
    assert.equal(noReason.headers['x-error-code'], 'REPORT_INVALID');
    const forged = await app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `url=https://sho.rt/${code}&reason=spam&token=29000000.${'A'.repeat(32)}`,
    });
    assert.equal(forged.statusCode, 400);
    assert.equal(forged.headers['x-error-code'], 'REPORT_FORM_EXPIRED');
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM abuse_reports WHERE code = $1', [code]);
    assert.equal(rows[0].n, 0);
  });

  test(`a client sends ${REPORTS_PER_CLIENT} reports an hour, then a polite 429 with Retry-After; another client still may`, async () => {
    const code = await linkOf(fine.keys.admin, 'https://many-reports.example/');
    for (let i = 0; i < REPORTS_PER_CLIENT; i++) await reported(code, 'spam', '203.0.113.50');
    const refused = await report({ url: `https://sho.rt/${code}`, reason: 'spam' }, '203.0.113.50');
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['x-error-code'], 'REPORT_RATE_LIMITED');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.match(refused.body, /Thank you\. We have had many reports from here just now/);
    await reported(code, 'spam', '203.0.113.51');
  });
});

describe('the operators’ queue', () => {
  test('an API key, even an admin’s, or a person who is no operator: 403 OPERATOR_REQUIRED; nobody signed in: 401', async () => {
    const withKey = await app.inject({ url: '/operator/reports', headers: bearer(spam.keys.admin) });
    assert.equal(withKey.statusCode, 403);
    assert.equal(errorCode(withKey), 'OPERATOR_REQUIRED');
    assert.equal((await app.inject({ url: '/operator/workspaces' })).statusCode, 401);
    await pool.query('UPDATE people SET operator = false WHERE id = $1', [personId]);
    try {
      const res = await app.inject({ url: '/operator/workspaces', headers: operator });
      assert.equal(errorCode(res), 'OPERATOR_REQUIRED');
    } finally {
      await pool.query('UPDATE people SET operator = true WHERE id = $1', [personId]);
    }
    assert.deepEqual((await app.inject({ url: '/operator/me', headers: operator })).json(), { operator: true });
    assert.deepEqual((await app.inject({ url: '/operator/me', headers: bearer(spam.keys.admin) })).json(), { operator: false });
  });

  test('npm run keys -- operator <email> on|off grants and takes the role; operators lists them', async () => {
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['scripts/keys.ts', ...args], {
        env: { PATH: process.env.PATH ?? '', ...compileCacheEnv(), DATABASE_URL: database.url, LOG_LEVEL: 'warn' },
      });
    await run('operator', 'OLGA@example.com', 'off');
    assert.equal(errorCode(await app.inject({ url: '/operator/reports', headers: operator })), 'OPERATOR_REQUIRED');
    await run('operator', 'olga@example.com', 'on');
    assert.equal((await app.inject({ url: '/operator/reports', headers: operator })).statusCode, 200);
    assert.deepEqual(JSON.parse((await run('operators')).stdout), { id: personId, name: 'Olga', email: 'olga@example.com' });
    await assert.rejects(run('operator', 'nobody@example.com', 'on'), (err: { code?: number; stderr?: string }) => err.code === 1);
  });

  test('disable_link: the link answers 410, all its open reports are actioned, audited in its workspace as the operator’s', async () => {
    const code = await linkOf(spam.keys.admin, 'https://disable-me.example/');
    await reported(code);
    await reported(code, 'malware', '198.51.100.8');
    assert.equal(await status(code), 302);
    await act(code, 'disable_link');
    assert.equal(await status(code), 410);
    assert.equal(
      (await queue()).find((g) => g.code === code),
      undefined,
      'no longer open',
    );
    const done = (await queue('?status=actioned')).find((g) => g.code === code);
    assert.equal(done?.count, 2);
    assert.equal(done?.action, 'disable_link');
    const handled = (await audit('report.handle')).find((row) => row.after.code === code);
    assert.equal(Number(handled?.workspace_id), spam.id);
    assert.equal(Number(handled?.actor_person_id), personId);
    assert.equal(handled?.after.reports, 2);
    const update = (await audit('link.update')).find((row) => row.target_id === code);
    assert.equal(Number(update?.actor_person_id), personId);
    const again = await app.inject({
      method: 'POST',
      url: `/operator/reports/${done?.id}/action`,
      headers: operator,
      payload: { action: 'dismiss' },
    });
    assert.equal(again.statusCode, 409);
  });

  test('block_domain: every link to the target’s host and its subdomains answers 451, creates naming it are refused, the rest of its domain is left', async () => {
    const code = await linkOf(spam.keys.admin, 'https://login.bad-bank.example/x');
    const sibling = await linkOf(fine.keys.admin, 'https://deep.login.bad-bank.example/other');
    const parent = await linkOf(fine.keys.admin, 'https://www.bad-bank.example/fine');
    await reported(code);
    await act(code, 'block_domain');
    assert.equal(await status(code), 451);
    assert.equal(await status(sibling), 451);
    assert.equal(await status(parent), 302, 'a report of one host blocks no other host of its domain');
    const refused = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(fine.keys.admin),
      payload: { url: 'https://login.bad-bank.example/' },
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(errorCode(refused), 'URL_BLOCKLISTED');
    const { rows } = await pool.query("SELECT entry, added_by FROM operator_blocklist WHERE entry = 'login.bad-bank.example'");
    assert.equal(Number(rows[0]?.added_by), personId);
    assert.equal((await audit('blocklist.add')).at(-1)?.target_id, 'login.bad-bank.example');
  });

  test('suspend_workspace: its links answer 451 and its keys may read, not write; lifting it restores exactly those links', async () => {
    const code = await linkOf(spam.keys.admin, 'https://suspend-me.example/');
    const other = await linkOf(spam.keys.admin, 'https://also-spam-co.example/');
    const disabled = await linkOf(spam.keys.admin, 'https://turned-off.example/');
    const off = await app.inject({
      method: 'PATCH',
      url: `/links/${disabled}`,
      headers: bearer(spam.keys.admin),
      payload: { disabled: true },
    });
    assert.equal(off.statusCode, 200, off.body);
    const outside = await linkOf(fine.keys.admin, 'https://fine-co-link.example/');
    // A link a blocklist acted on before the suspension (as links/safety.ts marks it).
    const flaggedBefore = await linkOf(spam.keys.admin, 'https://flagged-before.example/');
    await pool.query("UPDATE links SET safety = 'flagged', safety_list = 'local', version = version + 1 WHERE code = $1", [flaggedBefore]);
    // A link whose target the operators' list gains while the workspace is suspended (a sweep passes over blocked links).
    const listedMeanwhile = await linkOf(spam.keys.admin, 'https://listed-meanwhile.example/');
    await reported(code);
    await act(code, 'suspend_workspace');
    await pool.query("INSERT INTO operator_blocklist (entry, reason) VALUES ('listed-meanwhile.example', 'while suspended')");
    await app.blocklists.refreshOperator();
    await app.linkSafety.run();
    assert.equal(await status(code), 451);
    assert.equal(await status(other), 451);
    assert.equal(await status(outside), 302);
    const create = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(spam.keys.admin),
      payload: { url: 'https://new.example/' },
    });
    assert.equal(create.statusCode, 403);
    assert.equal(errorCode(create), 'WORKSPACE_SUSPENDED');
    assert.equal((await app.inject({ url: `/links/${other}`, headers: bearer(spam.keys.admin) })).statusCode, 200, 'reads stay');
    // A create by GET (YOURLS's API) is refused as well.
    const yourls = await app.inject({
      url: `/yourls-api.php?${new URLSearchParams({ action: 'shorturl', signature: spam.keys.admin.secret, url: 'https://by-get.example/', format: 'json' }).toString()}`,
    });
    assert.match(yourls.body, /WORKSPACE_SUSPENDED|suspended/);
    assert.equal((await pool.query("SELECT count(*)::int AS n FROM links WHERE url = 'https://by-get.example/'")).rows[0].n, 0);
    const listed = await app.inject({ url: '/operator/workspaces', headers: operator });
    const row = listed.json<{ workspaces: { id: number; suspended: boolean; links: number }[] }>().workspaces.find((w) => w.id === spam.id);
    assert.equal(row?.suspended, true);
    assert.ok((row?.links ?? 0) >= 3);

    const lift = await app.inject({
      method: 'PATCH',
      url: `/operator/workspaces/${spam.id}`,
      headers: operator,
      payload: { suspended: false },
    });
    assert.equal(lift.statusCode, 204, lift.body);
    assert.equal(await status(code), 302);
    assert.equal(await status(other), 302);
    assert.equal(await status(disabled), 410, 'a link turned off before stays off');
    await app.linkSafety.run();
    assert.equal(await status(listedMeanwhile), 451, 'a link a list named while it was suspended is judged again once it is lifted');
    const kept = await pool.query('SELECT safety, safety_list FROM links WHERE code = $1', [flaggedBefore]);
    assert.deepEqual(kept.rows, [{ safety: 'flagged', safety_list: 'local' }], 'what a list did before stays');
    const made = await app.inject({
      method: 'POST',
      url: '/links',
      headers: bearer(spam.keys.admin),
      payload: { url: 'https://new.example/' },
    });
    assert.equal(made.statusCode, 201, made.body);
    assert.deepEqual(
      (await audit('workspace.suspend'))
        .concat(await audit('workspace.unsuspend'))
        .map((r) => [Number(r.workspace_id), Number(r.actor_person_id)]),
      [
        [spam.id, personId],
        [spam.id, personId],
      ],
    );
  });

  test('no configured blocklist may take the name a suspension blocks under', () => {
    assert.throws(() => testConfig(database.url, { BLOCKLISTS: 'suspended=domains:/tmp/list.txt' }), /BLOCKLISTS/);
  });

  test('dismiss: the reports close, the link goes on redirecting', async () => {
    const code = await linkOf(fine.keys.admin, 'https://harmless.example/');
    await reported(code, 'other');
    await act(code, 'dismiss');
    assert.equal(await status(code), 302);
    assert.equal((await queue('?status=dismissed')).find((g) => g.code === code)?.action, 'dismiss');
  });
});
