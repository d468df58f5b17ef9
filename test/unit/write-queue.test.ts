// The group-commit write queue with fakes for its database: the batching, the ordering of commit
// and acknowledgement, and what it answers for every way a batch ends. Microseconds, no services.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ShortCode } from '../../src/core/codes.ts';
import type { LinkRequest } from '../../src/core/link.ts';
import type { Inserted, NewLink } from '../../src/db/links.ts';
import { AppError } from '../../src/errors.ts';
import { IdempotencyKeyTaken, WriteQueue, type WriteQueueDeps } from '../../src/write/write-queue.ts';
import { memoryLogger } from '../helpers/logs.ts';

const request = (url: string, alias?: string): LinkRequest => ({
  domainId: 0,
  url,
  alias: alias as ShortCode | undefined,
  expiresAt: null,
  startsAt: null,
  title: null,
  tags: [],
  options: null,
});

/** A fake database: each insert is recorded and held until released; every link is written unless told otherwise. */
function fakeDatabase() {
  const batches: NewLink[][] = [];
  const held: PromiseWithResolvers<void>[] = [];
  let hold = false;
  let ids = 0;
  let taken = new Set<string>();
  let keyTaken = new Set<string>();
  let failWith: unknown = null;
  const insert = async (links: NewLink[]): Promise<Inserted> => {
    batches.push(links);
    if (hold) {
      const gate = Promise.withResolvers<void>();
      held.push(gate);
      await gate.promise;
    }
    if (failWith !== null) throw failWith;
    const written = new Set(links.map((link) => link.code).filter((code) => !taken.has(code)));
    return { written, keyTaken: new Set([...written].filter((code) => keyTaken.has(code))) };
  };
  return {
    batches,
    held,
    insert,
    allocate: async (count: number) => Array.from({ length: count }, () => `gen${ids++}` as ShortCode),
    hold(on: boolean) {
      hold = on;
    },
    /** Codes that already exist: their inserts write nothing. */
    exists(codes: string[]) {
      taken = new Set(codes);
    },
    keyTakenFor(codes: string[]) {
      keyTaken = new Set(codes);
    },
    fail(err: unknown) {
      failWith = err;
    },
  };
}

function queueOf(db: ReturnType<typeof fakeDatabase>, overrides: Partial<WriteQueueDeps> = {}) {
  const { log, lines } = memoryLogger('warn');
  const committed: NewLink[][] = [];
  const discarded: string[] = [];
  const deps: WriteQueueDeps = {
    insert: db.insert,
    allocate: db.allocate,
    available: () => true,
    committed: async (links) => {
      committed.push(links);
    },
    ackDelayMs: () => 0,
    discard: async (links) => {
      discarded.push(...links.map((link) => link.code));
    },
    maxBatch: 500,
    maxQueued: 10_000,
    timeoutMs: 5000,
    log,
    ...overrides,
  };
  const queue = new WriteQueue(deps, deps);
  return { queue, committed, discarded, lines };
}

const settled = async (promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> => {
  const state = await Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<'pending'>((resolve) => setImmediate(resolve, 'pending')),
  ]);
  return state;
};

test('the creates of one turn are one INSERT; more than maxBatch are several, in order', async () => {
  const db = fakeDatabase();
  const { queue } = queueOf(db, { maxBatch: 30 });
  const links = await Promise.all(Array.from({ length: 100 }, (_, i) => queue.enqueue(request(`https://example.com/${i}`))));
  assert.deepEqual(
    db.batches.map((batch) => batch.length),
    [30, 30, 30, 10],
  );
  assert.deepEqual(
    db.batches.flat().map((link) => link.url),
    links.map((link) => link.url),
  );
  assert.equal(new Set(links.map((link) => link.code)).size, 100);
});

test('no create is answered before its batch committed, and each is answered once it has', async () => {
  const db = fakeDatabase();
  db.hold(true);
  const { queue, committed } = queueOf(db);
  const creates = Array.from({ length: 3 }, (_, i) => queue.enqueue(request(`https://example.com/${i}`)));
  while (db.held.length === 0) await new Promise(setImmediate);
  assert.deepEqual(await Promise.all(creates.map(settled)), ['pending', 'pending', 'pending']);
  assert.equal(committed.length, 0, 'the caches were told before the commit');
  db.held[0]?.resolve();
  assert.equal((await Promise.all(creates)).length, 3);
  assert.deepEqual(
    committed.map((links) => links.length),
    [3],
  );
});

test('a committed batch is acknowledged even when telling the caches throws; the failure is logged', async () => {
  const db = fakeDatabase();
  const { queue, lines } = queueOf(db, {
    committed: async () => {
      throw new Error('Redis client exploded');
    },
  });
  const links = await Promise.all([queue.enqueue(request('https://example.com/a')), queue.enqueue(request('https://example.com/b'))]);
  assert.deepEqual(
    links.map((link) => link.url),
    ['https://example.com/a', 'https://example.com/b'],
  );
  assert.equal(db.batches.length, 1, 'written once: nothing was retried');
  assert.equal(lines.filter((line) => line.msg?.includes('could not be announced')).length, 1);
});

test('a batch that fails is refused whole with a 503 code: the database error, or DATABASE_UNAVAILABLE for anything else', async () => {
  const db = fakeDatabase();
  const { queue } = queueOf(db);
  db.fail(new AppError('DATABASE_TIMEOUT'));
  const timedOut = await Promise.allSettled([
    queue.enqueue(request('https://example.com/a')),
    queue.enqueue(request('https://example.com/b')),
  ]);
  assert.deepEqual(
    timedOut.map((result) => (result.status === 'rejected' ? (result.reason as AppError).code : 'resolved')),
    ['DATABASE_TIMEOUT', 'DATABASE_TIMEOUT'],
  );
  db.fail(new Error('socket hang up'));
  await assert.rejects(queue.enqueue(request('https://example.com/c')), { code: 'DATABASE_UNAVAILABLE' });
});

test('a generated code that meets an existing row takes the next code; an alias that does is 409; a taken Idempotency-Key is said, and its link removed', async () => {
  const db = fakeDatabase();
  // Removing a link takes a round trip to the database.
  const discarded: string[] = [];
  const { queue } = queueOf(db, {
    discard: async (links) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      discarded.push(...links.map((link) => link.code));
    },
  });
  db.exists(['gen0', 'taken-alias']);
  db.keyTakenFor(['keyed']);
  let discardedWhenTold: string[] = [];
  const [generated, alias, keyed] = await Promise.allSettled([
    queue.enqueue(request('https://example.com/generated')),
    queue.enqueue(request('https://example.com/alias', 'taken-alias')),
    queue.enqueue(request('https://example.com/keyed', 'keyed')).catch((err: unknown) => {
      discardedWhenTold = [...discarded];
      throw err;
    }),
  ]);
  assert.equal(generated.status === 'fulfilled' && generated.value.code, 'gen1');
  assert.equal(alias.status === 'rejected' && (alias.reason as AppError).code, 'ALIAS_TAKEN');
  assert.ok(keyed.status === 'rejected' && keyed.reason instanceof IdempotencyKeyTaken);
  assert.deepEqual(
    db.batches.map((batch) => batch.map((link) => link.code)),
    [['gen0', 'taken-alias', 'keyed'], ['gen1']],
  );
  assert.deepEqual(discarded, ['keyed'], 'the link written with a key another create took is removed');
  assert.deepEqual(discardedWhenTold, ['keyed'], 'before its create hears of it (it then answers with the link that won)');
});

test('the same alias twice goes in two batches, so the second meets the first and is 409', async () => {
  const db = fakeDatabase();
  const { queue } = queueOf(db);
  const first = queue.enqueue(request('https://example.com/1', 'twice'));
  const second = queue.enqueue(request('https://example.com/2', 'twice'));
  assert.equal((await first).url, 'https://example.com/1');
  db.exists(['twice']);
  await assert.rejects(second, { code: 'ALIAS_TAKEN' });
  assert.deepEqual(
    db.batches.map((batch) => batch.length),
    [1, 1],
  );
});

test('full, unavailable or closing: refused at once, with nothing sent to the database', async () => {
  const db = fakeDatabase();
  db.hold(true);
  let available = true;
  const { queue } = queueOf(db, { maxQueued: 2, maxBatch: 1, available: () => available });
  const first = queue.enqueue(request('https://example.com/1'));
  while (db.held.length === 0) await new Promise(setImmediate);
  const queued = [queue.enqueue(request('https://example.com/2')), queue.enqueue(request('https://example.com/3'))];
  await assert.rejects(queue.enqueue(request('https://example.com/full')), { code: 'WRITE_QUEUE_FULL' });
  db.hold(false);
  db.held[0]?.resolve();
  await Promise.all([first, ...queued]);

  available = false;
  await assert.rejects(queue.enqueue(request('https://example.com/unavailable')), { code: 'DATABASE_UNAVAILABLE' });
  available = true;

  db.hold(true);
  const draining = queue.enqueue(request('https://example.com/draining'));
  while (db.held.length === 1) await new Promise(setImmediate);
  const closed = queue.close();
  await assert.rejects(queue.enqueue(request('https://example.com/closing')), { code: 'SHUTTING_DOWN' });
  assert.equal(await settled(closed), 'pending', 'close() did not wait for the batch being written');
  db.held[1]?.resolve();
  await closed;
  assert.equal(await settled(draining), 'resolved');
  assert.deepEqual(
    db.batches.flat().map((link) => link.url),
    ['https://example.com/1', 'https://example.com/2', 'https://example.com/3', 'https://example.com/draining'],
  );
});

test('a link still queued at its deadline is answered DATABASE_TIMEOUT and never written', async () => {
  const db = fakeDatabase();
  db.hold(true);
  const { queue } = queueOf(db, { maxBatch: 1, timeoutMs: 50 });
  const first = queue.enqueue(request('https://example.com/held'));
  const late = queue.enqueue(request('https://example.com/late'));
  while (db.held.length === 0) await new Promise(setImmediate);
  await new Promise((resolve) => setTimeout(resolve, 80));
  db.held[0]?.resolve();
  await first;
  await assert.rejects(late, { code: 'DATABASE_TIMEOUT' });
  assert.deepEqual(
    db.batches.flat().map((link) => link.url),
    ['https://example.com/held'],
  );
});

test('an alias the code space must announce first is answered only after its delay', async () => {
  const db = fakeDatabase();
  const { queue } = queueOf(db, { ackDelayMs: (alias) => (alias === 'Abc1234' ? 60 : 0) });
  const started = performance.now();
  const [delayed, plain] = await Promise.all([
    queue.enqueue(request('https://example.com/d', 'Abc1234')).then(() => performance.now() - started),
    queue.enqueue(request('https://example.com/p', 'plain-alias')).then(() => performance.now() - started),
  ]);
  assert.ok(delayed >= 55, `answered after ${delayed} ms`);
  assert.ok(plain < delayed, 'an alias without a delay waited');
});

test("a workspace past its share of the queue: its bulks' items are refused, an import's wait for room, a single create and another workspace's get in", async () => {
  const db = fakeDatabase();
  db.hold(true);
  const { queue } = queueOf(db, { maxQueued: 10, maxBatch: 2, workspaceMax: 3 });
  const of = (workspaceId: number, share: 'wait' | 'refuse' | 'single' = 'refuse') => ({
    workspaceId,
    ownerKeyId: null,
    idempotency: undefined,
    share: share === 'single' ? undefined : share,
  });
  const held = [queue.enqueue(request('https://example.com/a0'), of(1)), queue.enqueue(request('https://example.com/a1'), of(1))];
  while (db.held.length === 0) await new Promise(setImmediate);
  // Two are being written (not in the queue any more); three more fill workspace 1's share.
  const queued = [2, 3, 4].map((i) => queue.enqueue(request(`https://example.com/a${i}`), of(1)));
  const refused = queue.enqueue(request('https://example.com/refused'), of(1));
  assert.equal(await settled(refused), 'rejected', 'refused at once');
  await assert.rejects(refused, { code: 'WRITE_QUEUE_SHARE_FULL' });
  const waiting = queue.enqueue(request('https://example.com/imported'), of(1, 'wait'));
  const other = queue.enqueue(request('https://example.com/b0'), of(2));
  const single = queue.enqueue(request('https://example.com/single'), of(1, 'single'));
  assert.equal(queue.depth, 5, "workspace 1's three and its single create, workspace 2's one; the import's row waits outside");
  assert.equal(await settled(waiting), 'pending');
  db.hold(false);
  for (const gate of db.held) gate.resolve();
  await Promise.all([...held, ...queued, waiting, other, single]);
  assert.deepEqual(
    db.batches.flat().map((link) => link.url.slice('https://example.com/'.length)),
    ['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'single', 'imported'],
  );
});
