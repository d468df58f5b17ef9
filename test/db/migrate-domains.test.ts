// Upgrading a database of the release before domains (migrations 0001–0006) with links in it, while
// an instance of that release (its own code, taken from git) goes on serving redirects: not one
// redirect fails during the migration, every link moves onto the default domain with its clicks,
// days and Idempotency-Keys, and this release then serves and manages them as before.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { hashSecret } from '../../src/auth/api-keys.ts';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { bearer, startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';

/** The release before domains: the commit this work started from. */
const PREVIOUS_RELEASE = 'bb63a7d226ba8a03b801cb0b9afcacb191e46428';
const ROOT = new URL('../..', import.meta.url).pathname;
const LINKS = 2000;
const SECRET = `sk_${'D'.repeat(43)}`;

const log = pino({ level: 'silent' });
let database: TestDatabase;
let before0007: string;
let previous: string;

before(async () => {
  database = await createTestDatabase('migrate_dom', { migrated: false });
  before0007 = await mkdtemp(join(tmpdir(), 'migrations-before-0007-'));
  for (const file of await readdir(MIGRATIONS_DIR)) if (file < '0007') await cp(join(MIGRATIONS_DIR, file), join(before0007, file));
  // The previous release's own code, on this checkout's dependencies (the same lock file).
  previous = await mkdtemp(join(tmpdir(), 'shortener-previous-'));
  let archive: Buffer;
  try {
    archive = execFileSync('git', ['-C', ROOT, 'archive', PREVIOUS_RELEASE, 'src', 'migrations', 'package.json'], {
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    throw new Error(
      `this test runs the release before domains from git: commit ${PREVIOUS_RELEASE} must be in the clone (git fetch --unshallow)`,
      {
        cause: err,
      },
    );
  }
  execFileSync('tar', ['-x', '-C', previous], { input: archive });
  await symlink(join(ROOT, 'node_modules'), join(previous, 'node_modules'));
});
after(async () => {
  await database.drop();
  await rm(before0007, { recursive: true, force: true });
  await rm(previous, { recursive: true, force: true });
});

const codeOf = (i: number) => `old${String(i).padStart(5, '0')}`;

/** Redirects of every link, round and round over keep-alive connections, until `stop` resolves; what each answered. */
async function keepAsking(server: ServerProcess, stop: Promise<void>) {
  const answers = new Map<string, number>();
  const failures: string[] = [];
  const state = { stopped: false };
  void stop.then(() => (state.stopped = true));
  const worker = async (offset: number) => {
    for (let i = offset; !state.stopped; i += 4) {
      const code = codeOf(i % LINKS);
      try {
        const res = await fetch(`${server.url}/${code}`, { redirect: 'manual' });
        const location = res.headers.get('location');
        const outcome = res.status === 302 && location === `https://example.com/${code}` ? 'ok' : `${res.status} ${location ?? ''}`;
        answers.set(outcome, (answers.get(outcome) ?? 0) + 1);
        if (outcome !== 'ok') failures.push(`${code}: ${outcome}`);
      } catch (err) {
        failures.push(`${code}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
  return { answers, failures };
}

test('an instance of the release before serves every redirect while the migration runs; then every link is on the default domain and works as before', async (t) => {
  assert.equal((await migrate(database.url, log, before0007)).at(-1), '0006_link_list.sql');
  await withClient(database.url, async (client) => {
    await client.query("INSERT INTO api_keys (name, hash, role, workspace_id) VALUES ('ops', $1, 'admin', 1)", [hashSecret(SECRET)]);
    await client.query(
      `INSERT INTO links (code, url, owner_key_id, title, tags)
       SELECT 'old' || lpad(i::text, 5, '0'), 'https://example.com/old' || lpad(i::text, 5, '0'), 1, 'Link ' || i, ARRAY['old']
       FROM generate_series(0, $1 - 1) AS i`,
      [LINKS],
    );
    await client.query("UPDATE link_totals SET clicks = 41, bot_clicks = 3 WHERE code = 'old00007'");
    await client.query("INSERT INTO link_clicks_daily (code, day, clicks, bot_clicks) VALUES ('old00007', '2026-11-30', 41, 3)");
    await client.query("INSERT INTO idempotency_keys (scope, key, request_hash, code) VALUES (1, 'retry-7', '\\x00', 'old00007')");
  });

  const server = await startServer({ DATABASE_URL: database.url, DASHBOARD_ENABLED: 'false' }, 30_000, join(previous, 'src/server.ts'));
  t.after(() => server.child.kill('SIGKILL'));
  const migrated = Promise.withResolvers<void>();
  const asking = keepAsking(server, migrated.promise);
  // Some redirects before, all of them during, some after.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = performance.now();
  const applied = await migrate(database.url, log);
  const tookMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 300));
  migrated.resolve();
  const { answers, failures } = await asking;
  // 0007 and 0008, and every later migration (0010 makes link_clicks_daily partitioned while the release before writes clicks into it).
  assert.deepEqual(applied, (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql') && file >= '0007').sort());
  // What the README's rolling upgrade says: once the keys are swapped, the release before can no
  // longer create (its INSERT names the old key): a fast 503, and its redirects go on.
  const late = await fetch(`${server.url}/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/late' }),
  });
  assert.equal(late.status, 503);
  assert.equal((await fetch(`${server.url}/old00009`, { redirect: 'manual' })).status, 302);
  assert.deepEqual(failures.slice(0, 5), [], 'no redirect of the release before failed during the migration');
  assert.ok((answers.get('ok') ?? 0) > 100, `redirects were served throughout: ${JSON.stringify([...answers])}`);
  t.diagnostic(`migration took ${tookMs.toFixed(0)} ms; the release before answered ${answers.get('ok')} redirects meanwhile, 0 failed`);

  await withClient(database.url, async (client) => {
    const domains = await client.query<{ domain_id: string; n: string }>('SELECT domain_id, count(*) AS n FROM links GROUP BY domain_id');
    assert.deepEqual(domains.rows, [{ domain_id: '0', n: String(LINKS) }]);
    const keys = await client.query<{ conname: string; def: string }>(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE conname IN ('links_pkey', 'link_totals_pkey', 'link_clicks_daily_pkey', 'alias_log_pkey') ORDER BY conname`,
    );
    assert.deepEqual(
      keys.rows.map((row) => `${row.conname} ${row.def}`),
      [
        'alias_log_pkey PRIMARY KEY (version, domain_id, code)',
        'link_clicks_daily_pkey PRIMARY KEY (domain_id, code, day)',
        'link_totals_pkey PRIMARY KEY (domain_id, code)',
        'links_pkey PRIMARY KEY (domain_id, code)',
      ],
    );
  });

  // This release: the links on the default domain, their clicks, days and keys with them; the same
  // alias is now free on a branded domain.
  // DOMAIN_VERIFICATION=false: the domain added below is served at once (verification is test/security/domains.test.ts's).
  const { app } = await startApp(t, database.url, { DOMAIN_VERIFICATION: 'false' });
  const headers = bearer({ secret: SECRET });
  assert.equal((await app.inject({ url: '/old00007', headers: { host: 'sho.rt' } })).headers.location, 'https://example.com/old00007');
  const details = await app.inject({ url: '/links/old00007', headers });
  assert.deepEqual(
    { ...details.json<Record<string, unknown>>(), createdAt: undefined },
    {
      code: 'old00007',
      domain: 'sho.rt',
      shortUrl: 'https://sho.rt/old00007',
      url: 'https://example.com/old00007',
      title: 'Link 7',
      tags: ['old'],
      expiresAt: null,
      startsAt: null,
      disabled: false,
      archivedAt: null,
      state: 'active',
      safety: null,
      createdAt: undefined,
      creator: { id: 1, name: 'ops' },
      clicks: 41,
      botClicks: 3,
      clicksUsed: null,
      options: null,
    },
  );
  const stats = await app.inject({ url: '/links/old00007/stats?from=2026-11-30&to=2026-11-30', headers });
  assert.deepEqual(stats.json<{ total: unknown }>().total, { clicks: 41, botClicks: 3 });
  assert.equal((await app.inject({ method: 'POST', url: '/domains', headers, payload: { host: 'go.example.com' } })).statusCode, 201);
  const again = await app.inject({
    method: 'POST',
    url: '/links',
    headers,
    payload: { url: 'https://example.com/branded-7', alias: 'old00007', domain: 'go.example.com' },
  });
  assert.equal(again.statusCode, 201, again.body);
  assert.equal(
    (await app.inject({ url: '/old00007', headers: { host: 'go.example.com' } })).headers.location,
    'https://example.com/branded-7',
  );
  assert.equal((await app.inject({ url: '/old00007', headers: { host: 'sho.rt' } })).headers.location, 'https://example.com/old00007');
});
