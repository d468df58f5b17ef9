// Password-protected links against someone who wants their targets without the password: a
// crawler's User-Agent, a shared cache, a burst of guesses, a full hashing queue, short passwords,
// codes probed through the form, what Redis holds, a tampered Redis entry, a stuffed Cookie.
// Everything is driven over HTTP, a raw socket and Redis, as an attacker or an operator sees it.

import assert from 'node:assert/strict';
import { hkdfSync } from 'node:crypto';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { createLink, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { parseResponse } from '../helpers/raw-http.ts';
import { deleteKeys, randomPrefix, redisInUse, SHARED_REDIS_URL } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';

const prefix = randomPrefix('passwords');
let database: TestDatabase;

before(async () => {
  database = await createTestDatabase('security_passwords');
});
after(async () => {
  await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
});

const REDIS = { REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix, TRUST_PROXY: 'loopback' };
const CURL = 'curl/8.5.0';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const FORM = 'application/x-www-form-urlencoded';

async function instance(t: Cleanup, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const { app } = await startApp(t, database.url, { ...REDIS, ...env });
  await until('invalidations heard', redisInUse(app));
  return app;
}

async function protectedLink(app: FastifyInstance, alias: string, options: Record<string, unknown> = {}): Promise<void> {
  const created = await createLink(app, {
    url: `https://example.com/target-of-${alias}`,
    alias,
    options: { password: 'correct horse', ...options },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
}

function guess(app: FastifyInstance, code: string, password: string, client: string) {
  return app.inject({
    method: 'POST',
    url: `/${code}`,
    headers: { 'content-type': FORM, 'x-forwarded-for': client, 'user-agent': DESKTOP },
    payload: new URLSearchParams({ password }).toString(),
  });
}

function counts(statuses: readonly number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const status of statuses) out[status] = (out[status] ?? 0) + 1;
  return out;
}

test("a crawler's User-Agent (curl counts as one) gets no target of a protected link with a social preview", async (t) => {
  const app = await instance(t);
  await protectedLink(app, 'sec-preview', { preview: { title: 'A title for crawlers' } });
  const res = await app.inject({ url: '/sec-preview', headers: { 'user-agent': CURL } });
  assert.equal(res.body.includes('target-of-sec-preview'), false, `the target is in the body: ${res.body}`);
  assert.equal((res.headers.location ?? '').includes('target-of-sec-preview'), false);
  assert.ok(res.statusCode === 200, `status ${res.statusCode}`);
});

test('answers that depend on the User-Agent are never public: the preview page is private and varies by User-Agent, the redirect beside it private', async (t) => {
  // An operator who lets CDNs keep plain redirects must not have them keep a crawler's page for people.
  const app = await instance(t, { REDIRECT_CACHE_CONTROL: 'public, max-age=90' });
  const created = await createLink(app, { url: 'https://example.com/previewed', alias: 'sec-vary', options: { preview: { title: 'T' } } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const crawler = await app.inject({ url: '/sec-vary', headers: { 'user-agent': CURL } });
  assert.equal(crawler.statusCode, 200);
  const crawlerCache = String(crawler.headers['cache-control']);
  assert.doesNotMatch(crawlerCache, /public/, `the preview page is cache-control: ${crawlerCache}`);
  assert.match(crawler.headers.vary ?? '', /user-agent/i, 'the preview page says it varies by User-Agent');
  const person = await app.inject({ url: '/sec-vary', headers: { 'user-agent': DESKTOP } });
  assert.equal(person.statusCode, 302);
  assert.match(String(person.headers['cache-control']), /^private\b/, `the redirect is cache-control: ${person.headers['cache-control']}`);
  // A plain link's redirect keeps what the operator chose.
  assert.equal((await createLink(app, { url: 'https://example.com/plain', alias: 'sec-plain' })).status, 201);
  assert.equal((await app.inject({ url: '/sec-plain' })).headers['cache-control'], 'public, max-age=90');
});

test('a burst of 24 concurrent wrong guesses gets at most 5 judged (403), the rest 429 PASSWORD_RATE_LIMITED', async (t) => {
  const app = await instance(t);
  await protectedLink(app, 'sec-burst');
  const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => guess(app, 'sec-burst', `wrong guess ${i}`, '198.51.100.24')));
  const statuses = answers.map((res) => res.statusCode);
  assert.deepEqual(counts(statuses), { 403: 5, 429: 19 }, `statuses: ${JSON.stringify(counts(statuses))}`);
  const limited = answers.find((res) => res.statusCode === 429);
  assert.equal(limited?.headers['x-error-code'], 'PASSWORD_RATE_LIMITED');
  assert.ok(Number(limited?.headers['retry-after']) > 0);
  // Another instance counts the same attempts (Redis): the client is refused there too, before any hash.
  const other = await instance(t);
  assert.equal((await guess(other, 'sec-burst', 'correct horse', '198.51.100.24')).statusCode, 429);
});

test('a burst of guesses larger than the hashing queue gets 503 PASSWORD_CHECKS_BUSY, at once, for the overflow', async (t) => {
  const app = await instance(t, { PASSWORD_HASHES_AT_ONCE: '1', PASSWORD_GUESSES_WAITING: '1' });
  await protectedLink(app, 'sec-queue');
  const clients = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
  const answers = await Promise.all(
    clients.flatMap((client) => Array.from({ length: 4 }, (_, i) => guess(app, 'sec-queue', `no ${i}`, client))),
  );
  const busy = answers.filter((res) => res.statusCode === 503);
  assert.ok(busy.length > 0, `no 503 among ${JSON.stringify(counts(answers.map((res) => res.statusCode)))}`);
  for (const res of busy) {
    assert.equal(res.headers['x-error-code'], 'PASSWORD_CHECKS_BUSY');
    assert.ok(Number(res.headers['retry-after']) > 0);
  }
  assert.ok(answers.every((res) => res.statusCode === 503 || res.statusCode === 403));
});

test('a new password of 7 characters is refused 400 PASSWORD_INVALID; 8 are enough', async (t) => {
  const app = await instance(t);
  const short = await createLink(app, { url: 'https://example.com/short', options: { password: 'seven77' } });
  assert.equal(short.status, 400, JSON.stringify(short.body));
  assert.equal((short.body.error as { code: string }).code, 'PASSWORD_INVALID');
  assert.equal((await createLink(app, { url: 'https://example.com/eight', options: { password: 'eight888' } })).status, 201);
});

test("POST /<unknown code> spends the client's 404 budget: 429 NOT_FOUND_RATE_LIMITED once it is empty", async (t) => {
  const app = await instance(t, { NOT_FOUND_LIMIT_PER_MINUTE: '3' });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await guess(app, `NoSuch${i}x`, 'anything at all', '198.51.100.40')).statusCode);
  assert.deepEqual(statuses, [404, 404, 404, 429, 429, 429]);
  const last = await guess(app, 'NoSuch9x', 'anything at all', '198.51.100.40');
  assert.equal(last.json<{ error: { code: string } }>().error.code, 'NOT_FOUND_RATE_LIMITED');
});

test('Redis holds neither the scrypt hash of a protected link nor the key of passes, once the link has been resolved', async (t) => {
  const secret = 'a-code-secret-for-this-test-only-0123456789';
  const app = await instance(t, { CODE_SECRET: secret });
  await protectedLink(app, 'sec-redis');
  // Another instance resolves it through Redis, and a visitor earns a pass.
  const other = await instance(t, { CODE_SECRET: secret });
  assert.equal((await other.inject({ url: '/sec-redis', headers: { 'user-agent': DESKTOP } })).statusCode, 200);
  assert.equal((await guess(other, 'sec-redis', 'correct horse', '198.51.100.50')).statusCode, 303);
  const stored = await withClient(database.url, (c) =>
    c.query<{ options: { passwordHash: string } }>("SELECT options FROM links WHERE code = 'sec-redis'"),
  );
  const hash = stored.rows[0]?.options.passwordHash ?? '';
  const [, , , , salt = '', key = ''] = hash.split('$');
  const passKey = Buffer.from(hkdfSync('sha256', secret, '', 'shortener link-passes', 32));
  const redis = new Redis(SHARED_REDIS_URL);
  t.after(() => redis.quit());
  const values: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const k of keys) if ((await redis.type(k)) === 'string') values.push(`${k} ${await redis.get(k)}`);
  } while (cursor !== '0');
  assert.ok(
    values.some((value) => value.includes('sec-redis')),
    'the link is in Redis',
  );
  for (const value of values) {
    for (const [what, secretPart] of [
      ['scrypt', 'scrypt$'],
      ['the hash', key],
      ['the salt', salt],
      ['CODE_SECRET', secret],
      ['the key of passes (hex)', passKey.toString('hex')],
      ['the key of passes (base64url)', passKey.toString('base64url')],
    ] as const) {
      assert.equal(value.includes(secretPart), false, `${what} in Redis: ${value}`);
    }
  }
});

test('a Redis entry tampered with CR LF in its URL puts no injected header on the wire', async (t) => {
  const app = await instance(t);
  assert.equal((await createLink(app, { url: 'https://example.com/honest', alias: 'sec-tamper' })).status, 201);
  const redis = new Redis(SHARED_REDIS_URL);
  t.after(() => redis.quit());
  const redisKey = `${prefix}link:sec-tamper`;
  const value = await redis.get(redisKey);
  assert.ok(value !== null, 'the create wrote the link through to Redis');
  // U+010D and U+010A: written as latin1, one byte a character, their low bytes are CR and LF.
  await redis.set(
    redisKey,
    value.replace('https://example.com/honest', 'https://example.com/x\u010d\u010aset-cookie:injected=1'),
    'PX',
    600_000,
  );
  // A fresh instance: its LRU is empty, so it reads Redis.
  const fresh = await instance(t);
  const address = await fresh.listen({ port: 0, host: '127.0.0.1' });
  // A connection that stays open is the fast path's (Connection: close is handed to node:http): read until one answer is whole.
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(new URL(address).port), '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (parseResponse(text) !== undefined) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.setTimeout(5000, () => socket.destroy());
    socket.write('GET /sec-tamper HTTP/1.1\r\nHost: sho.rt\r\n\r\n');
  });
  assert.doesNotMatch(raw, /set-cookie/i, `the response: ${JSON.stringify(raw)}`);
  assert.doesNotMatch(raw, /injected/);
  const res = parseResponse(raw);
  assert.ok(res !== undefined, JSON.stringify(raw));
  // The entry is no entry: the link is read from Postgres, as it was made.
  assert.equal(res.status, 302);
  assert.equal(res.headers.get('location'), 'https://example.com/honest');
  for (const [name, headerValue] of res.headers) assert.match(`${name}: ${headerValue}`, /^[\x20-\x7e]*$/, 'visible ASCII only');
});

test('a Cookie with 1,000 link-pass entries is answered like one with none, and fast', async (t) => {
  const app = await instance(t);
  await protectedLink(app, 'sec-cookie');
  const right = await guess(app, 'sec-cookie', 'correct horse', '198.51.100.60');
  assert.equal(right.statusCode, 303);
  const pass = String(right.headers['set-cookie']).split(';')[0] as string;
  assert.equal(
    (await app.inject({ url: '/sec-cookie', headers: { 'user-agent': DESKTOP, cookie: pass } })).statusCode,
    302,
    'the pass alone',
  );
  // 1,000 entries before the good pass: none of them is read past the first few, so the pass is not either.
  const stuffed = `${Array.from({ length: 1000 }, () => 'link-pass=0').join('; ')}; ${pass}`;
  const started = performance.now();
  const res = await app.inject({ url: '/sec-cookie', headers: { 'user-agent': DESKTOP, cookie: stuffed } });
  const ms = performance.now() - started;
  assert.equal(res.statusCode, 200, 'the password page, as without a cookie');
  assert.match(res.body, /<input id="password"/);
  assert.ok(ms < 1000, `${ms} ms`);
});
