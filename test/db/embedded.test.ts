// With no DATABASE_URL the service runs on the embedded engine, and its links survive a restart.
// Its first start logs a setup link; the first admin is set up from loopback and signs in to the
// dashboard it serves; once someone exists, no start logs a link again.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { postLink, startServer } from '../helpers/server-process.ts';
import { until } from '../helpers/wait.ts';

/** Sets up the first admin from loopback; the session cookie. */
async function setUpAdmin(url: string): Promise<{ cookie: string; role: string }> {
  const res = await fetch(`${url}/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada', email: 'ada@example.com', password: 'correct horse battery staple' }),
  });
  assert.equal(res.status, 201);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { cookie, role: ((await res.json()) as { key: { role: string } }).key.role };
}

let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'shortener-embedded-'));
});
after(() => rm(dataDir, { recursive: true, force: true }));

test('no DATABASE_URL: creates and redirects on the embedded engine, and a restart keeps the links; the first start logs a setup link and the first admin set up from loopback signs in', async (t) => {
  const env = { EMBEDDED_DATA_DIR: dataDir };
  const first = await startServer(env, 60_000);
  t.after(() => first.child.kill('SIGKILL'));
  assert.ok(first.logs.some((l) => String(l.msg).includes('embedded Postgres engine')));
  await until('the setup link is said', async () => first.logs.some((l) => typeof l.setup === 'string'));
  assert.match(String(first.logs.find((l) => typeof l.setup === 'string')?.setup), /\/app\/setup\?token=[A-Za-z0-9_-]{32}$/);
  const admin = await setUpAdmin(first.url);
  assert.equal(admin.role, 'admin');
  assert.equal((await fetch(`${first.url}/auth/session`, { headers: { cookie: admin.cookie } })).status, 200);
  const dashboard = await fetch(`${first.url}/`, { redirect: 'follow' });
  assert.equal(dashboard.status, 200);
  assert.match(dashboard.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await dashboard.text(), /<script type="module"[^>]* src="\/app\/assets\//);
  const created = await postLink(first.url, { url: 'https://example.com/embedded' });
  assert.equal(created.status, 201);
  const alias = await postLink(first.url, { url: 'https://example.com/embedded-alias', alias: 'embedded' });
  assert.equal(alias.status, 201);
  assert.equal((await postLink(first.url, { url: 'https://example.com/again', alias: 'embedded' })).status, 409);
  first.child.kill('SIGTERM');
  assert.deepEqual(await first.exited, { code: 0, signal: null });

  const second = await startServer(env, 60_000);
  t.after(() => second.child.kill('SIGKILL'));
  assert.ok(!second.logs.some((l) => 'setup' in l), 'once someone exists, no setup link');
  for (const [code, url] of [
    [created.code, 'https://example.com/embedded'],
    ['embedded', 'https://example.com/embedded-alias'],
  ]) {
    const res = await fetch(`${second.url}/${code}`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), url);
  }
  second.child.kill('SIGTERM');
  assert.deepEqual(await second.exited, { code: 0, signal: null });
});

test('ANALYTICS_ENABLED=true on the embedded engine: a graceful stop writes the rollups of the clicks, and the stats read them after a restart', async (t) => {
  const env = { EMBEDDED_DATA_DIR: join(dataDir, 'analytics'), ANALYTICS_ENABLED: 'true' };
  const first = await startServer(env, 60_000);
  t.after(() => first.child.kill('SIGKILL'));
  const { cookie } = await setUpAdmin(first.url);
  const created = await postLink(first.url, { url: 'https://example.com/embedded-analytics' });
  assert.equal(created.status, 201);
  const iPhone =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${first.url}/${created.code}`, {
      redirect: 'manual',
      headers: { 'user-agent': iPhone, referer: 'https://news.ycombinator.com/item?id=1' },
    });
    assert.equal(res.status, 302);
  }
  first.child.kill('SIGTERM');
  assert.deepEqual(await first.exited, { code: 0, signal: null });

  const second = await startServer(env, 60_000);
  t.after(() => second.child.kill('SIGKILL'));
  const res = await fetch(`${second.url}/links/${created.code}/stats?dimensions=referrer,device,browser`, {
    headers: { cookie },
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as {
    range: { clicks: number; visitors: number };
    dimensions: Record<string, { value: string; clicks: number }[]>;
  };
  assert.equal(body.range.clicks, 3);
  assert.equal(body.range.visitors, 1);
  const of = (dimension: string) => body.dimensions[dimension]?.map((v) => [v.value, v.clicks]);
  assert.deepEqual(of('referrer'), [['news.ycombinator.com', 3]]);
  assert.deepEqual(of('device'), [['mobile', 3]]);
  assert.deepEqual(of('browser'), [['Safari', 3]]);
  second.child.kill('SIGTERM');
  assert.deepEqual(await second.exited, { code: 0, signal: null });
});
