// The `shortener` command (src/cli/) as a user runs it: a child process (`node src/cli/main.ts`)
// against the real service listening on a port of its own, its URL and key from the environment (or
// a profile file in a HOME of the test's own), its stdout, stderr and exit code checked. What it
// changed is read back through the typed client. No run may print the key it was given, or a stack.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { shortenerClient, ShortenerError, type Client } from '../../src/client/client.ts';
import * as api from '../../src/client/operations.ts';
import { EXIT_CODES } from '../../src/cli/exit-codes.ts';
import { DESKTOP_UA } from '../helpers/agents.ts';
import { servedApp } from '../helpers/compat.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/redis.ts';
import { compileCacheEnv } from '../helpers/server-process.ts';
import { keysWith } from '../helpers/workspaces.ts';

const CLI = new URL('../../src/cli/main.ts', import.meta.url).pathname;

let database: TestDatabase;
let served: Awaited<ReturnType<typeof servedApp>>;
let keys: Awaited<ReturnType<typeof keysWith<'admin' | 'viewer' | 'spare'>>>;
let home: string;
let admin: Client;
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  database = await createTestDatabase('cli');
  served = await servedApp({ after: (fn) => cleanups.push(fn) }, database.url);
  keys = await keysWith(database.url, { admin: 'admin', viewer: 'viewer', spare: 'member' });
  admin = shortenerClient({ baseUrl: served.base, key: keys.admin.secret });
  home = await mkdtemp(join(tmpdir(), 'shortener-cli-'));
});
after(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup();
  await database.drop();
  await rm(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  /** The key in SHORTENER_API_KEY (the admin's by default; null: none). */
  key?: string | null;
  /** SHORTENER_URL (the served app's by default; null: none). */
  url?: string | null;
  env?: Record<string, string>;
  /** Written to stdin, which is then closed (it is a pipe, never a terminal). */
  input?: string;
}

/**
 * Runs the command with a HOME and XDG_CONFIG_HOME of the test's own (the real profile file is never
 * read or written), and checks what every run must hold: no key it was given in its output, no stack trace.
 */
async function cli(
  args: readonly string[],
  { key = keys.admin.secret, url = served.base, env = {}, input = '' }: RunOptions = {},
): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      NODE_COMPILE_CACHE: join(home, 'compile-cache'),
      ...compileCacheEnv(),
      ...(url === null ? {} : { SHORTENER_URL: url }),
      ...(key === null ? {} : { SHORTENER_API_KEY: key }),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const run = { code, stdout, stderr };
  const given = [key, args[args.indexOf('--key') + 1]].filter(
    (secret) => secret !== null && secret !== undefined && secret.startsWith('sk'),
  );
  for (const secret of given)
    assert.ok(!stdout.includes(secret as string) && !stderr.includes(secret as string), `a key printed: ${show(run)}`);
  assert.doesNotMatch(stderr, /^\s+at .+:\d+:\d+\)?$/m, 'a stack trace');
  return run;
}

function show(run: Run): string {
  return `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
}

/** The run ended with `code`, and its stderr ends with `error: … (<errorCode>)` when one is named. */
function exited(run: Run, code: number, errorCode?: string): void {
  assert.equal(run.code, code, show(run));
  if (errorCode !== undefined) assert.match(run.stderr, new RegExp(`^error: .+ \\(${errorCode}\\)$`, 'm'), show(run));
}

async function notFound(code: string): Promise<ShortenerError> {
  const error = await api.getLinksByCode({ client: admin, throwOnError: true, path: { code } }).then(
    () => assert.fail(`${code} still exists`),
    (err: unknown) => err,
  );
  assert.ok(error instanceof ShortenerError);
  return error;
}

test('links create prints the short URL (--json the link), get shows it, update changes it, delete asks for --yes', async () => {
  const json = ['--alias', 'cli-json', '--title', 'Spring', '--tag', 'a', '--tag', 'b', '--json'];
  const [plain, made] = await Promise.all([
    cli(['links', 'create', 'https://example.com/cli/plain']),
    cli(['links', 'create', 'https://example.com/cli/json', ...json]),
  ]);
  exited(plain, 0);
  assert.match(plain.stdout, new RegExp(`^${served.base}/\\w+\\n$`));
  assert.equal(plain.stderr, '');
  exited(made, 0);
  const link = JSON.parse(made.stdout) as api.PostLinksResponses[201];
  assert.deepEqual(
    [link.code, link.shortUrl, link.url, link.title, link.tags],
    ['cli-json', `${served.base}/cli-json`, 'https://example.com/cli/json', 'Spring', ['a', 'b']],
  );

  const [shown, nothing, unconfirmed] = await Promise.all([
    cli(['links', 'get', 'cli-json']),
    cli(['links', 'update', 'cli-json']),
    // stdin is a pipe here, as in a script: nothing is deleted without --yes.
    cli(['links', 'delete', 'cli-json']),
  ]);
  exited(shown, 0);
  assert.match(shown.stdout, /^target {5}https:\/\/example\.com\/cli\/json$/m);
  assert.match(shown.stdout, /^tags {7}a, b$/m);
  exited(nothing, 2, 'NOTHING_TO_CHANGE');
  exited(unconfirmed, 2, 'CONFIRMATION_REQUIRED');

  const changed = await cli([
    'links',
    'update',
    'cli-json',
    '--url',
    'https://example.com/cli/changed',
    '--title',
    '',
    '--tag',
    'c',
    '--disable',
  ]);
  exited(changed, 0);
  assert.match(changed.stdout, /^state {6}disabled$/m);
  // Read back through the API: the change is the service's, not only the command's output (and the link is still there).
  const { data: stored } = await api.getLinksByCode({ client: admin, throwOnError: true, path: { code: 'cli-json' } });
  assert.deepEqual([stored.url, stored.title, stored.tags, stored.disabled], ['https://example.com/cli/changed', null, ['c'], true]);

  const deleted = await cli(['links', 'delete', 'cli-json', '--yes']);
  exited(deleted, 0);
  assert.equal(deleted.stderr, 'deleted cli-json\n');
  assert.equal((await notFound('cli-json')).status, 404);
  exited(await cli(['links', 'get', 'cli-json']), 4, 'LINK_NOT_FOUND');
});

test('links list: a table, one JSON array, and with --all every page of a small --limit', async () => {
  for (let i = 0; i < 4; i++) {
    await api.postLinks({ client: admin, throwOnError: true, body: { url: `https://example.com/cli/list/${i}`, tags: ['listed'] } });
  }
  const { data } = await api.getLinks({ client: admin, throwOnError: true, query: { tag: 'listed', limit: '100' } });
  const codes = data.links.map((link) => link.code);
  assert.equal(codes.length, 4);

  const [tabled, page, all] = await Promise.all([
    cli(['links', 'list', '--tag', 'listed']),
    cli(['links', 'list', '--tag', 'listed', '--limit', '3', '--json']),
    cli(['links', 'list', '--tag', 'listed', '--limit', '3', '--all', '--json']),
  ]);
  exited(tabled, 0);
  const [header, ...rows] = tabled.stdout.trimEnd().split('\n');
  assert.match(header ?? '', /^CODE\s+SHORT URL\s+CLICKS\s+TARGET$/);
  assert.deepEqual(
    rows.map((row) => row.split(/\s+/)),
    data.links.map((link) => [link.code, link.shortUrl, '0', link.url]),
  );

  exited(page, 0);
  assert.deepEqual(
    (JSON.parse(page.stdout) as { code: string }[]).map((link) => link.code),
    codes.slice(0, 3),
  );
  assert.match(page.stderr, /^3 of 4 links shown; the next page: --cursor \S+, or every page: --all$/m);

  // Two pages of three, written as one array.
  exited(all, 0);
  assert.deepEqual(
    (JSON.parse(all.stdout) as { code: string }[]).map((link) => link.code),
    codes,
  );
  assert.equal(all.stderr, '');
});

test('links stats: the clicks of a link, all time and over the last days', async () => {
  await api.postLinks({ client: admin, throwOnError: true, body: { url: 'https://example.com/cli/stats', alias: 'cli-stats' } });
  const followed = await fetch(`${served.base}/cli-stats`, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } });
  assert.equal(followed.status, 302);
  await served.app.clicks.flush();

  const [text, json] = await Promise.all([
    cli(['links', 'stats', 'cli-stats', '--days', '7']),
    cli(['links', 'stats', 'cli-stats', '--json']),
  ]);
  exited(text, 0);
  assert.match(text.stdout, /^cli-stats: 1 clicks by people, 0 by bots, all time$/m);
  const today = new Date().toISOString().slice(0, 10);
  const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
  assert.match(text.stdout, new RegExp(`^${weekAgo} to ${today}: 1 clicks by people`, 'm'));
  assert.match(text.stdout, new RegExp(`^${today}\\s+1\\s+0\\s+1$`, 'm'));
  exited(json, 0);
  assert.equal((JSON.parse(json.stdout) as api.GetLinksByCodeStatsResponses[200]).total.clicks, 1);
  exited(await cli(['links', 'stats', 'cli-stats', '--days', '7', '--from', '2030-01-01']), 2);
});

/**
 * A CSV of `rows` links to https://example.com/<tag>/<i>, tagged `tag`, the row `failing` to a private
 * address. The first row's note (a column the import ignores) has a line break: the rows after it
 * start a line further down.
 */
function importFile(rows: number, failing: number, tag: string): string {
  const lines = ['url,title,tags,note'];
  for (let i = 1; i <= rows; i++) {
    const url = i === failing ? 'http://10.0.0.1/private' : `https://example.com/${tag}/${i}`;
    lines.push(`${url},"row ${i}, quoted",${tag},${i === 1 ? '"two\nlines"' : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

test('import sends a large file in chunks with progress on stderr, names a failed row by its line, and exits 7', async () => {
  const file = join(home, 'links.csv');
  // 250 rows in three chunks of 100; row 120 is on line 122 (the header, and row 1's two lines).
  await writeFile(file, importFile(250, 120, 'imported'));
  const run = await cli(['import', file, '--chunk-rows', '100']);
  exited(run, 7);
  assert.deepEqual(run.stderr.trimEnd().split('\n'), ['imported 100 of 250 rows', 'imported 200 of 250 rows', 'imported 250 of 250 rows']);
  const [summary, ...failures] = run.stdout.trimEnd().split('\n');
  assert.equal(summary, '250 rows (generic): 249 created, 0 existing, 1 failed');
  assert.deepEqual(
    failures.map((line) => line.replace(/: failed: .* \(/, ' (')),
    ['line 122 (URL_PRIVATE_ADDRESS)'],
  );
  const { data } = await api.getLinks({ client: admin, throwOnError: true, query: { tag: 'imported', limit: '1' } });
  assert.equal(data.total, 249);

  // Again, as one report: every row comes back existing, and the failed one fails again.
  const again = await cli(['import', file, '--chunk-rows', '100', '--json']);
  exited(again, 7);
  const report = JSON.parse(again.stdout) as api.PostLinksImportResponses[200];
  assert.deepEqual([report.rows, report.created, report.existing, report.failed], [250, 0, 249, 1]);
  assert.deepEqual(
    report.results.filter((result) => result.status === 'failed').map((result) => [result.row, result.error?.code]),
    [[122, 'URL_PRIVATE_ADDRESS']],
  );
  const first = report.results[0];
  assert.equal(first?.row, 2);
  const { data: imported } = await api.getLinksByCode({ client: admin, throwOnError: true, path: { code: first?.code ?? '' } });
  assert.deepEqual([imported.url, imported.title], ['https://example.com/imported/1', 'row 1, quoted']);

  exited(await cli(['import', join(home, 'missing.csv')]), 2, 'FILE_UNREADABLE');
});

test('export writes the CSV to stdout, or whole to a file', async () => {
  for (const path of ['one', 'two']) {
    await api.postLinks({ client: admin, throwOnError: true, body: { url: `https://example.com/exported/${path}`, tags: ['exported'] } });
  }
  const output = join(home, 'export.csv');
  const [toStdout, toFile] = await Promise.all([
    cli(['export', '--tag', 'exported']),
    cli(['export', '--tag', 'exported', '--output', output]),
  ]);
  exited(toStdout, 0);
  const lines = toStdout.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^code,domain,shortUrl,url,title,tags,/);
  assert.deepEqual(
    lines.slice(1).map((line) => line.split(',')[3]),
    ['https://example.com/exported/two', 'https://example.com/exported/one'],
  );
  exited(toFile, 0);
  assert.equal(await readFile(output, 'utf8'), toStdout.stdout);
  assert.match(toFile.stderr, /^wrote .+export\.csv \(\d[\d,]* bytes\)$/m);
});

test('keys: a created key is printed once and works, the list never shows a secret, a revoked key is refused (3)', async () => {
  const created = await cli(['keys', 'create', 'ci-bot', '--role', 'member']);
  exited(created, 0);
  const secret = created.stdout.trim();
  assert.equal(created.stdout, `${secret}\n`);
  assert.match(created.stderr, /^created key (\d+) \(ci-bot, member\)/);
  const id = /^created key (\d+)/.exec(created.stderr)?.[1] ?? '';

  exited(await cli(['links', 'list', '--limit', '1'], { key: secret }), 0);
  const [listed, tabled] = await Promise.all([cli(['keys', 'list', '--json']), cli(['keys', 'list'])]);
  exited(listed, 0);
  const bot = (JSON.parse(listed.stdout) as Record<string, unknown>[]).find((key) => key.name === 'ci-bot');
  assert.deepEqual([bot?.id, bot?.role, 'key' in (bot ?? {})], [Number(id), 'member', false]);
  assert.ok(!listed.stdout.includes(secret) && !tabled.stdout.includes(secret));
  assert.match(tabled.stdout, new RegExp(`^${id}\\s+ci-bot\\s+member\\s`, 'm'));

  exited(await cli(['keys', 'revoke', id, '--yes']), 0);
  exited(await cli(['links', 'list'], { key: secret }), 3, 'API_KEY_INVALID');
});

test('domains: add prints the TXT record to publish, list shows it pending, verify reports the DNS unreachable (6)', async () => {
  const added = await cli(['domains', 'add', 'go.cli-example.com']);
  exited(added, 0);
  assert.match(added.stdout, /^go\.cli-example\.com: pending, 0 links\nTXT _shortener\.go\.cli-example\.com "\S+"\n$/);
  const listed = await cli(['domains', 'list']);
  exited(listed, 0);
  assert.match(listed.stdout, /^go\.cli-example\.com\s+pending\s+0$/m);
  // The tests' DNS resolver is a port where nothing answers.
  exited(await cli(['domains', 'verify', 'go.cli-example.com']), 6, 'DOMAIN_DNS_UNAVAILABLE');
  exited(await cli(['domains', 'remove', 'go.cli-example.com', '--yes']), 0);
  const { data } = await api.getDomains({ client: admin, throwOnError: true });
  assert.deepEqual(
    data.domains.map((domain) => domain.host),
    ['127.0.0.1'],
  );
});

test('profile set writes the file with mode 0600, list never prints a key, and a command signs in with it', async () => {
  const file = join(home, 'config', 'shortener', 'config.json');
  const set = await cli(['profile', 'set', 'work', '--url', served.base, '--key', keys.spare.secret], { key: null, url: null });
  exited(set, 0);
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const stdin = await cli(['profile', 'set', 'other', '--url', 'https://sho.rt', '--key-stdin'], {
    key: null,
    url: null,
    input: `${keys.viewer.secret}\n`,
  });
  exited(stdin, 0);
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), {
    profiles: { work: { url: served.base, key: keys.spare.secret }, other: { url: 'https://sho.rt', key: keys.viewer.secret } },
  });

  const listed = await cli(['profile', 'list'], { key: null, url: null });
  exited(listed, 0);
  assert.equal(
    listed.stdout,
    `NAME   URL${' '.repeat(served.base.length - 3)}  KEY\nwork   ${served.base}  saved\nother  https://sho.rt${' '.repeat(served.base.length - 14)}  saved\n`,
  );
  for (const secret of [keys.spare.secret, keys.viewer.secret]) assert.ok(!listed.stdout.includes(secret));

  // Signed in by the profile alone (a member may list), and warned of a file others may read.
  await chmod(file, 0o644);
  const signedIn = await cli(['--profile', 'work', 'links', 'list', '--limit', '1'], { key: null, url: null });
  exited(signedIn, 0);
  assert.equal(signedIn.stderr.split('\n')[0], `warning: ${file} holds API keys and others may read it: chmod 600 ${file}`);
  exited(await cli(['--profile', 'nope', 'links', 'list'], { key: null, url: null }), 2, 'PROFILE_NOT_FOUND');
  const missing = await cli(['links', 'list'], { key: null, url: null, env: { SHORTENER_CONFIG: join(home, 'none.json') } });
  exited(missing, 2, 'URL_MISSING');
  assert.match(missing.stderr, /--url.*SHORTENER_URL.*profile/);
  exited(await cli(['links', 'list'], { key: null, env: { SHORTENER_CONFIG: join(home, 'none.json') } }), 3, 'KEY_MISSING');
});

test('each class of failure has its exit code, and an error line without a stack', async () => {
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const [badKey, badUrl, unreachable, badFlag, viewer] = await Promise.all([
    cli(['links', 'list'], { key: 'sk_not_a_key_of_this_service' }),
    cli(['links', 'create', 'not a url']),
    cli(['links', 'list'], { url: nowhere }),
    cli(['links', 'list', '--bogus']),
    cli(['links', 'create', 'https://example.com/cli/viewer'], { key: keys.viewer.secret }),
  ]);
  exited(badKey, 3, 'API_KEY_INVALID');
  exited(badUrl, 5, 'URL_\\w+');
  exited(unreachable, 6, 'NETWORK_ERROR');
  exited(badFlag, 2);
  assert.match(badFlag.stderr, /^error: unknown option '--bogus'$/m);
  exited(viewer, 3, 'ROLE_FORBIDDEN');
});

test('an import refused for the rate limit waits for Retry-After and goes on', async (t) => {
  // Five creates a key every two seconds: the second chunk of five does not fit in the window the first opened.
  const limited = await servedApp(t, database.url, {
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_CREATES_PER_KEY: '5',
    RATE_LIMIT_WINDOW_SECONDS: '2',
  });
  const file = join(home, 'limited.csv');
  await writeFile(file, importFile(10, 0, 'limited'));
  const run = await cli(['import', file, '--chunk-rows', '5'], { url: limited.base });
  exited(run, 0);
  assert.deepEqual(run.stderr.trimEnd().split('\n'), [
    'imported 5 of 10 rows',
    'RATE_LIMITED: waiting 2 s before sending the rows from line 8 again',
    'imported 10 of 10 rows',
  ]);
  assert.equal(run.stdout, '10 rows (generic): 10 created, 0 existing, 0 failed\n');
});

test('the exit codes of --help and of docs/cli.md are the table of src/cli/exit-codes.ts', async () => {
  const help = await cli(['--help']);
  exited(help, 0);
  const docs = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('## Exit codes'));
  const documented = [...section.matchAll(/^\| (\d) \| (.+) \|$/gm)].map((row) => [Number(row[1]), row[2]]);
  assert.deepEqual(
    documented,
    EXIT_CODES.map((row) => [row.code, row.meaning]),
  );
  for (const row of EXIT_CODES) assert.match(help.stdout, new RegExp(`^  ${row.code}  ${row.meaning.replace(/[()]/g, '\\$&')}$`, 'm'));
});
