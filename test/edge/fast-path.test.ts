// What the fast path (src/edge/fast-path.ts) keeps of HTTP/1.1 besides the bytes of each answer
// (test/edge/fast-path-differential.test.ts compares those with node:http): answers in the order of
// their requests while a lookup holds the first, a bounded pipeline, a client that does not read
// stopping the reading, Connection: close on answers still owed when the app closes, and the
// switch that turns it off.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { MAX_PIPELINE } from '../../src/edge/fast-path.ts';
import { createLink, startApp } from '../helpers/app.ts';
import { createTestDatabase, holdLookups, withClient, type TestDatabase } from '../helpers/db.ts';
import { parseResponse, type RawResponse } from '../helpers/raw-http.ts';
import { until, within } from '../helpers/wait.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('fast_path');
});
after(() => database.drop());

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: sho.rt\r\n${extra}\r\n`;

/** A connection that collects every answer as it arrives. */
async function connect(app: FastifyInstance) {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const socket = net.connect(Number(new URL(address).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  let closed = false;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('close', () => (closed = true));
  // A client still writing after the server closed gets a reset; what it read before stays in `text`.
  socket.on('error', () => {});
  return {
    socket,
    /** The answers complete so far, in order. */
    answers(): RawResponse[] {
      const answers: RawResponse[] = [];
      let rest = text;
      for (let answer = parseResponse(rest); answer !== undefined; answer = parseResponse(rest)) {
        answers.push(answer);
        rest = rest.slice(answer.length);
      }
      return answers;
    },
    closed: () => closed,
  };
}

/** Redirect requests the handler has been given (LRU hits and misses), from the app's own counters. */
function handled(app: FastifyInstance): number {
  const lru = app.redirectCounts?.lru;
  return lru === undefined ? Number.NaN : (lru[0] as number) + (lru[1] as number);
}

async function linkTo(app: FastifyInstance, alias: string): Promise<void> {
  assert.equal((await createLink(app, { url: `https://example.com/${alias}`, alias })).status, 201);
}

test('pipelined answers keep their order: a held lookup holds back the hits and the API answer behind it', async (t) => {
  const hold = holdLookups((codes) => codes.includes('heldCode'));
  const { app } = await startApp(t, database.url, {}, { wrapDb: hold.wrapDb });
  await linkTo(app, 'hitCode');
  await withClient(database.url, (client) => client.query(`INSERT INTO links (code, url) VALUES ('heldCode', 'https://example.com/held')`));
  const conn = await connect(app);
  conn.socket.write(get('/hitCode') + get('/heldCode') + get('/hitCode') + get('/healthz') + get('/hitCode'));
  await within('the lookup to be held', hold.reached);
  await until('the first hit to be answered', async () => conn.answers().length === 1);
  // The hit behind the held lookup is answered by the handler, but not written before it.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(conn.answers().length, 1);
  hold.release();
  await until('every answer', async () => conn.answers().length === 5);
  const answers = conn.answers();
  assert.deepEqual(
    answers.map((a) => [a.status, a.headers.get('location')]),
    [
      [302, 'https://example.com/hitCode'],
      [302, 'https://example.com/held'],
      [302, 'https://example.com/hitCode'],
      [200, undefined],
      [302, 'https://example.com/hitCode'],
    ],
  );
  assert.equal(conn.closed(), false);
  conn.socket.destroy();
});

test(`at most ${MAX_PIPELINE} requests are read ahead of an answer that is not written yet`, async (t) => {
  const hold = holdLookups((codes) => codes.includes('heldCode'));
  const { app } = await startApp(t, database.url, {}, { wrapDb: hold.wrapDb });
  await linkTo(app, 'aheadHit');
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url) VALUES ('heldCode', 'https://example.com/held') ON CONFLICT DO NOTHING`),
  );
  const handledBefore = handled(app);
  const conn = await connect(app);
  const count = 4 * MAX_PIPELINE;
  conn.socket.write(get('/heldCode') + get('/aheadHit').repeat(count - 1));
  await within('the lookup to be held', hold.reached);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(handled(app) - handledBefore, MAX_PIPELINE, 'requests given to the handler while the first is held');
  hold.release();
  await until('every answer', async () => conn.answers().length === count);
  assert.equal(handled(app) - handledBefore, count);
  assert.ok(conn.answers().every((a, i) => a.status === 302 && (i === 0 || a.headers.get('location') === 'https://example.com/aheadHit')));
  conn.socket.destroy();
});

test('a client that does not read its answers stops the reading of its requests, and then gets every answer', async (t) => {
  const { app } = await startApp(t, database.url);
  await linkTo(app, 'unreadHit');
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const socket = net.connect(Number(new URL(address).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  const handledBefore = handled(app);
  const request = Buffer.from(get('/unreadHit'));
  // ~200 bytes of answer per 36 bytes of request: the answers fill both socket buffers long before the requests are all read.
  const count = 100_000;
  for (let i = 0; i < count; i += 1000) socket.write(Buffer.concat(Array.from({ length: 1000 }, () => request)));
  await until('the server to stop reading', async () => {
    const now = handled(app);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return handled(app) === now && now > handledBefore;
  });
  const read = handled(app) - handledBefore;
  assert.ok(read < count / 2, `${read} of ${count} requests read while their answers were not`);
  let answers = 0;
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
    let at = text.indexOf('\r\n\r\n');
    while (at !== -1) {
      answers++;
      text = text.slice(at + 4);
      at = text.indexOf('\r\n\r\n');
    }
  });
  socket.resume();
  await until('every answer', async () => answers === count, 60_000);
  assert.equal(handled(app) - handledBefore, count);
  socket.destroy();
});

test('answers still owed when the app closes say Connection: close, and the connection closes after them', async (t) => {
  const hold = holdLookups((codes) => codes.includes('heldCode'));
  const { app } = await startApp(t, database.url, {}, { wrapDb: hold.wrapDb });
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url) VALUES ('heldCode', 'https://example.com/held') ON CONFLICT DO NOTHING`),
  );
  const conn = await connect(app);
  conn.socket.write(get('/heldCode'));
  await within('the lookup to be held', hold.reached);
  const closed = app.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  hold.release();
  await closed;
  await until('the connection to close', async () => conn.closed());
  const [answer, ...more] = conn.answers();
  assert.equal(more.length, 0);
  assert.equal(answer?.status, 302);
  assert.equal(answer?.headers.get('connection'), 'close');
  assert.equal(answer?.headers.get('keep-alive'), undefined);
});

test('FAST_PATH=false: node:http parses every request, with the same answer', async (t) => {
  const answers: Record<string, RawResponse | undefined> = {};
  for (const fastPath of ['true', 'false']) {
    const { app } = await startApp(t, database.url, { FAST_PATH: fastPath });
    if (fastPath === 'true') await linkTo(app, 'sameCode');
    let parsed = 0;
    app.server.on('request', () => parsed++);
    const conn = await connect(app);
    conn.socket.write(get('/sameCode'));
    await until('the answer', async () => conn.answers().length === 1);
    answers[fastPath] = conn.answers()[0];
    assert.equal(parsed, fastPath === 'true' ? 0 : 1, `requests node:http parsed with FAST_PATH=${fastPath}`);
    conn.socket.destroy();
  }
  assert.equal(answers.true?.status, 302);
  assert.deepEqual(answers.true, answers.false);
});

test('a head handed to node:http keeps the headers deadline it had: being handed off gives no second HEADERS_TIMEOUT_MS', async (t) => {
  // The deadline is 2 s after the accept; node:http's own clock, started at the handoff 1.5 s in, would end 3.5 s in.
  const { app } = await startApp(t, database.url, { HEADERS_TIMEOUT_MS: '2000' });
  const conn = await connect(app);
  const opened = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  conn.socket.write('POST /links HTTP/1.1\r\nHost: sho.rt\r\n');
  // Until the answer comes: a write after the server's close would only be reset.
  const drip = setInterval(() => conn.answers().length === 0 && !conn.closed() && conn.socket.write('X-Drip: 1\r\n'), 100);
  t.after(() => clearInterval(drip));
  await until('the connection to close', async () => conn.closed(), 10_000);
  const closedAt = performance.now() - opened;
  assert.equal(conn.answers()[0]?.status, 408);
  assert.ok(closedAt < 3200, `closed ${Math.round(closedAt)} ms after the accept, past the 2000 ms deadline`);
});

test('a CONNECT gets its 405 and its connection closes, even if the client keeps its side open and goes on sending', async (t) => {
  const { app } = await startApp(t, database.url);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  // allowHalfOpen: the client does not end its side when the server ends its own.
  const socket = net.connect({ port: Number(new URL(address).port), host: '127.0.0.1', allowHalfOpen: true });
  let text = '';
  let closed = false;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  socket.write('CONNECT sho.rt:443 HTTP/1.1\r\nHost: sho.rt:443\r\n\r\nsome tunnelled bytes');
  const more = setInterval(() => socket.writable && socket.write('more'), 100);
  t.after(() => {
    clearInterval(more);
    socket.destroy();
  });
  await until('the connection to close', async () => closed, 5000);
  assert.equal(parseResponse(text)?.status, 405);
  // A graceful close does not wait for it.
  await within('app.close()', app.close(), 5000);
});
