// The group-commit write queue against a real Postgres.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createCodeCodec } from '../src/core/codes.ts';
import { createPermutation } from '../src/core/permutation.ts';
import type { Queryable } from '../src/db/pool.ts';
import { createLink, startApp } from './helpers/app.ts';
import { countingDb, createTestDatabase, type TestDatabase } from './helpers/db.ts';

let database: TestDatabase;
let check: pg.Pool;
before(async () => {
  database = await createTestDatabase('write_queue');
  check = new pg.Pool({ connectionString: database.url, max: 10 });
});
after(async () => {
  await check.end();
  await database.drop();
});

test('1000 concurrent creates: distinct codes, each committed before its 201, in a few INSERTs', async (t) => {
  let counted: string[] = [];
  const { app } = await startApp(t, database.url, {}, (db) => {
    const c = countingDb(db);
    counted = c.statements;
    return c.db;
  });
  const presentAtResponse: Promise<boolean>[] = [];
  const codes = await Promise.all(
    Array.from({ length: 1000 }, async (_, i) => {
      const res = await createLink(app, { url: `https://example.com/item/${i}` });
      assert.equal(res.status, 201);
      const code = res.body.code as string;
      // Asked the moment the 201 arrives, on a connection of its own.
      presentAtResponse.push(
        check.query('SELECT url FROM links WHERE code = $1', [code]).then((r) => r.rows[0]?.url === `https://example.com/item/${i}`),
      );
      return code;
    }),
  );
  assert.equal(new Set(codes).size, 1000);
  const present = await Promise.all(presentAtResponse);
  assert.equal(present.filter(Boolean).length, 1000);
  const inserts = counted.filter((sql) => sql.trimStart().startsWith('INSERT')).length;
  const reservations = counted.filter((sql) => sql.includes('nextval')).length;
  t.diagnostic(`1000 links in ${inserts} INSERT statements and ${reservations} id-block reservations`);
  assert.ok(inserts <= 20, `${inserts} INSERTs for 1000 links`);
  assert.ok(reservations <= 3, `${reservations} id-block reservations for 1000 links`);
});

test('a 201 waits for the commit: while the INSERT is blocked by a lock, no create is answered', async (t) => {
  const { app } = await startApp(t, database.url);
  const locker = new pg.Client({ connectionString: database.url });
  await locker.connect();
  t.after(() => locker.end());
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE links IN SHARE MODE'); // blocks INSERT, not SELECT
  let answered = false;
  const create = createLink(app, { url: 'https://example.com/blocked', alias: 'blocked-by-lock' }).then((res) => {
    answered = true;
    return res;
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(answered, false, 'a create was answered while its INSERT could not commit');
  assert.equal((await check.query("SELECT 1 FROM links WHERE code = 'blocked-by-lock'")).rowCount, 0);
  await locker.query('COMMIT');
  const res = await create;
  assert.equal(res.status, 201);
  assert.equal((await check.query("SELECT 1 FROM links WHERE code = 'blocked-by-lock'")).rowCount, 1);
});

test('the same alias asked for by five requests at once: one 201, four 409', async (t) => {
  const { app } = await startApp(t, database.url);
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => createLink(app, { url: `https://example.com/race/${i}`, alias: 'race-alias' })),
  );
  assert.deepEqual(
    results.map((r) => r.status).sort((a, b) => a - b),
    [201, 409, 409, 409, 409],
  );
  const winner = results.find((r) => r.status === 201);
  const { rows } = await check.query('SELECT url FROM links WHERE code = $1', ['race-alias']);
  assert.equal(rows[0]?.url, winner?.body.url);
});

test('a generated code that meets an existing alias takes the next id; the alias is untouched', async (t) => {
  const { app, config } = await startApp(t, database.url);
  const { rows } = await check.query<{ last_value: string; is_called: boolean }>('SELECT last_value, is_called FROM link_id_blocks');
  const seq = rows[0];
  assert.ok(seq !== undefined);
  const nextId = seq.is_called ? Number(seq.last_value) + 1000 : Number(seq.last_value);
  const codec = createCodeCodec(createPermutation(config.codeSecret, config.codeLength), config.codeLength);
  const squatted = codec.fromId(nextId);
  assert.equal((await createLink(app, { url: 'https://example.com/squatter', alias: squatted })).status, 201);

  const generated = await createLink(app, { url: 'https://example.com/generated' });
  assert.equal(generated.status, 201);
  assert.equal(generated.body.code, codec.fromId(nextId + 1));
  const res = await app.inject({ url: `/${squatted}` });
  assert.equal(res.headers.location, 'https://example.com/squatter');
});

test('a full queue answers 503 WRITE_QUEUE_FULL at once, with Retry-After; the queued links still commit', async (t) => {
  const gate = Promise.withResolvers<void>();
  const gated = (db: Queryable): Queryable => ({
    async query(text, values) {
      if (text.includes('INSERT INTO links')) await gate.promise;
      return db.query(text, values);
    },
  });
  // One link per batch: the first is held at the gate, five wait in the queue, the rest are refused.
  const { app } = await startApp(t, database.url, { WRITE_QUEUE_MAX: '5', WRITE_BATCH_MAX: '1' }, gated);
  const started = Date.now();
  const settled: { status: number; code: string; retryAfter: unknown; ms: number }[] = [];
  const pending = Array.from({ length: 12 }, (_, i) =>
    app.inject({ method: 'POST', url: '/links', payload: { url: `https://example.com/full/${i}` } }).then((res) => {
      settled.push({
        status: res.statusCode,
        code: res.json<{ error?: { code: string } }>().error?.code ?? '',
        retryAfter: res.headers['retry-after'],
        ms: Date.now() - started,
      });
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  // At most five queued and one held at the gate; everything else was refused at once.
  const refused = settled.length;
  assert.ok(refused >= 6, `${refused} refused`);
  for (const refusal of settled) {
    assert.deepEqual({ ...refusal, ms: 0 }, { status: 503, code: 'WRITE_QUEUE_FULL', retryAfter: '1', ms: 0 });
    assert.ok(refusal.ms < 500);
  }
  gate.resolve();
  await Promise.all(pending);
  assert.deepEqual(
    settled.slice(refused).map((r) => r.status),
    Array(12 - refused).fill(201),
  );
});
