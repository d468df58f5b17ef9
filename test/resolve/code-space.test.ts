// Codes that cannot exist are answered 404 from memory; a code that exists is never among them,
// whichever instance created it and however recently.

import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, test } from 'node:test';
import { BASE62_ALPHABET } from '../../src/core/base62.ts';
import { createCodeCodec, type ShortCode } from '../../src/core/codes.ts';
import { DEFAULT_DOMAIN_ID, keyOf } from '../../src/core/domains.ts';
import { createPermutation } from '../../src/core/permutation.ts';
import { ACK_DELAY_MS, MAX_AGE_MS, REFRESH_MS, SLACK } from '../../src/resolve/code-space.ts';
import { createLink, startCountedApp, testConfig, type Cleanup } from '../helpers/app.ts';
import { ADMIN_URL, createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { proxyInFront } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('code_space');
});
after(() => database.drop());

const config = testConfig(ADMIN_URL);
const codec = createCodeCodec(createPermutation(config.codeSecret, config.codeLength), config.codeLength);

/**
 * A random code of the generated shape that no id this test can reach stands for. (One random
 * code in a thousand decodes to an id within SLACK of the mark, and is rightly looked up.)
 */
function randomCode(): string {
  for (;;) {
    const code = Array.from({ length: config.codeLength }, () => BASE62_ALPHABET[randomInt(62)]).join('');
    if (codec.toId(code) >= 2 * SLACK) return code;
  }
}

/** An instance of the app whose lookups of links are counted. */
const instance = (t: Cleanup, env: Record<string, string> = {}, url = database.url) => startCountedApp(t, url, env);

/** The positive control of a "no lookup" count: a link written by hand costs `counted` exactly one more lookup. */
async function looksUpOnce(counted: Awaited<ReturnType<typeof instance>>, code: string): Promise<void> {
  await insertRawLinks(database.url, [code]);
  const already = counted.lookups();
  const res = await counted.app.inject({ url: `/${code}` });
  assert.equal(res.statusCode, 302);
  assert.equal(counted.lookups(), already + 1, 'a code that may exist is looked up, and counted');
}

// "Without a lookup": the code space reads Postgres every REFRESH_MS, but no request costs a query.
// Only while it is fresh: a read that a busy machine delays past MAX_AGE_MS rightly sends codes to
// Postgres until the next read, so a request counts here when the space was fresh both before and
// after it (between the two its age only grew, or a read made it younger).
test("a scanner's random codes get 404 from memory, without a lookup", async (t) => {
  const counted = await instance(t);
  const { codeSpace } = counted.app;
  let fresh = 0;
  for (let tries = 0; fresh < 300 && tries < 3000; tries++) {
    const code = randomCode();
    const key = keyOf({ domainId: DEFAULT_DOMAIN_ID, code: code as ShortCode });
    const freshBefore = codeSpace.impossible(key);
    const lookups = counted.lookups();
    const res = await counted.app.inject({ url: `/${code}` });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json<{ error: { code: string } }>().error.code, 'LINK_NOT_FOUND');
    if (!freshBefore || !codeSpace.impossible(key)) continue;
    fresh++;
    assert.equal(counted.lookups(), lookups, `${code}: looked up while the code space said it cannot exist`);
  }
  assert.equal(fresh, 300, 'requests made while the code space was fresh');
  await looksUpOnce(counted, 'scan-control');
});

test('links created on another instance redirect there at once, past any block it knew of', async (t) => {
  const reader = await instance(t);
  const writer = await instance(t, { WRITE_BATCH_MAX: '100' });
  // More than a block of ids (1000): the writer reserves blocks the reader has never read about.
  const codes: string[] = [];
  for (let batch = 0; batch < 6; batch++) {
    const created = await Promise.all(
      Array.from({ length: 250 }, (_, i) => createLink(writer.app, { url: `https://example.com/${batch}/${i}` })),
    );
    for (const c of created) {
      assert.equal(c.status, 201);
      codes.push(c.body.code as string);
    }
    // Asked right after their 201s, before the reader's next read.
    const answers = await Promise.all(created.map((c) => reader.app.inject({ url: `/${c.body.code as string}` })));
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      created.map(() => 302),
    );
  }
  assert.equal(new Set(codes).size, 1500);
  // None was ruled out from memory (nor was any in the reader's LRU): each was found in Postgres.
  assert.equal(reader.app.lookupCounts?.postgresFound, 1500);
});

test('an alias shaped like a generated code is acknowledged only once every instance will find it', async (t) => {
  const other = await instance(t);
  const creator = await instance(t);
  const alias = randomCode();
  // Before it exists, the other instance rules it out from memory, without a lookup.
  assert.equal((await other.app.inject({ url: `/${alias}` })).statusCode, 404);
  assert.equal(other.lookups(), 0);

  const started = performance.now();
  const created = await createLink(creator.app, { url: 'https://example.com/promo', alias });
  assert.equal(created.status, 201);
  assert.ok(performance.now() - started >= ACK_DELAY_MS - 5, 'the 201 waited for every instance to read the alias');
  const res = await other.app.inject({ url: `/${alias}` });
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers.location, 'https://example.com/promo');
  assert.equal(other.lookups(), 1, 'once it exists, the other instance looks it up');

  // A 409 says the alias exists just as a 201 does: it waits too.
  const taken = performance.now();
  const again = await createLink(other.app, { url: 'https://example.com/late', alias });
  assert.equal(again.status, 409);
  assert.ok(performance.now() - taken >= ACK_DELAY_MS - 5, 'the 409 waited as the 201 did');

  // Other shapes cannot be taken for generated codes: no wait.
  const quick = performance.now();
  assert.equal((await createLink(creator.app, { url: 'https://example.com/x', alias: 'spring-sale' })).status, 201);
  assert.ok(performance.now() - quick < MAX_AGE_MS);

  // An instance configured for another code length (its own filter off) still waits before
  // acknowledging an alias that the others could take for one of this database's codes.
  const migrating = await instance(t, { CODE_LENGTH: '8' });
  const second = randomCode();
  const slow = performance.now();
  assert.equal((await createLink(migrating.app, { url: 'https://example.com/second', alias: second })).status, 201);
  assert.ok(performance.now() - slow >= ACK_DELAY_MS - 5);
  assert.equal((await other.app.inject({ url: `/${second}` })).statusCode, 302);
});

test('an alias written by hand is known to every instance once committed, however old its created_at', async (t) => {
  const reader = await instance(t);
  const alias = randomCode();
  await withClient(database.url, async (client) => {
    await client.query('BEGIN');
    await client.query("INSERT INTO links (code, url, created_at) VALUES ($1, 'https://example.com/by-hand', now() - interval '1 hour')", [
      alias,
    ]);
    // The reader goes on reading while the transaction is open; it cannot see the row yet, and
    // rules the alias out from memory: its reads are fresh.
    await new Promise((resolve) => setTimeout(resolve, 3 * REFRESH_MS));
    assert.equal((await reader.app.inject({ url: `/${alias}` })).statusCode, 404);
    assert.equal(reader.lookups(), 0, 'ruled out from memory, not looked up (which would have cached the 404)');
    await client.query('COMMIT');
  });
  await new Promise((resolve) => setTimeout(resolve, ACK_DELAY_MS));
  const res = await reader.app.inject({ url: `/${alias}` });
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers.location, 'https://example.com/by-hand');
  assert.equal(reader.lookups(), 1, 'the alias learnt from the log is looked up');
  // More than twice MAX_AGE_MS since the first read: the reader kept reading, its filter is still on.
  assert.equal((await reader.app.inject({ url: `/${randomCode()}` })).statusCode, 404);
  assert.equal(reader.lookups(), 1, 'a random code is still ruled out from memory');
});

test('an alias is possible on its own domain only: the same code elsewhere is still ruled out from memory', async (t) => {
  const reader = await instance(t);
  const alias = randomCode();
  const host = `cs-${Date.now()}.example.com`;
  await withClient(database.url, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      "INSERT INTO domains (workspace_id, host, verification_status) VALUES (1, $1, 'verified') RETURNING id",
      [host],
    );
    await client.query("INSERT INTO links (domain_id, code, url) VALUES ($1, $2, 'https://example.com/on-a-domain')", [rows[0]?.id, alias]);
  });
  await new Promise((resolve) => setTimeout(resolve, ACK_DELAY_MS + REFRESH_MS));
  const res = await reader.app.inject({ url: `/${alias}`, headers: { host } });
  assert.equal(res.headers.location, 'https://example.com/on-a-domain');
  assert.equal(reader.lookups(), 1, 'the alias on its domain is looked up');
  assert.equal((await reader.app.inject({ url: `/${alias}`, headers: { host: 'sho.rt' } })).statusCode, 404);
  assert.equal(reader.lookups(), 1, 'on the default domain the same code is ruled out without a lookup');
});

test('an instance with another CODE_SECRET than the one that generated the codes looks every code up', async (t) => {
  const owner = await instance(t);
  const code = (await createLink(owner.app, { url: 'https://example.com/owned' })).body.code as string;
  const stranger = await instance(t, { CODE_SECRET: 'another-secret-of-enough-length' });
  assert.equal((await stranger.app.inject({ url: `/${code}` })).statusCode, 302);
  assert.equal((await stranger.app.inject({ url: `/${randomCode()}` })).statusCode, 404);
  assert.equal(stranger.lookups(), 2);
});

test('when its last read is too old (Postgres unreachable), an instance rules nothing out: 503, not 404', async (t) => {
  const { proxy, url } = await proxyInFront(t, database.url);
  const { app, lookups } = await instance(t, { DB_CONNECT_TIMEOUT_MS: '300' }, url);
  // While its reads are fresh, it rules random codes out from memory. (On a busy machine one read
  // may come late: a 404 looked up then is no failure of this test's point, which is what follows.)
  await until('a random code is ruled out from memory, without a lookup', async () => {
    const seen = lookups();
    assert.equal((await app.inject({ url: `/${randomCode()}` })).statusCode, 404);
    return lookups() === seen;
  });
  const counted = lookups();
  await proxy.down();
  await new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 100));
  const res = await app.inject({ url: `/${randomCode()}` });
  assert.equal(res.statusCode, 503);
  assert.equal(lookups(), counted + 1, 'the code was looked up, and Postgres could not answer');
});
