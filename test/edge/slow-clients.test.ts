// Slow clients (issue #5): a client that drips its headers, drips its body, or connects and says
// nothing is closed within the configured limits, and so is a keep-alive connection left idle;
// clients that are slow but within the limits, and everyone else meanwhile, are still served.
// Real sockets: these limits live in node:http, which app.inject() never reaches.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { createLink } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startLoggedApp, type LogLine } from '../helpers/logs.ts';
import { parseResponse, type RawResponse } from '../helpers/raw-http.ts';

const HEADERS_TIMEOUT_MS = 1000;
// Past HEADERS_TIMEOUT_MS + LATE_MS: a header drip closed by the request timeout fails its test.
const REQUEST_TIMEOUT_MS = 3500;
// Longer than the headers timeout, so that an idle close after a response can only be its doing.
const KEEP_ALIVE_TIMEOUT_MS = 3000;
// Node 24 closes an idle keep-alive connection this much after keepAliveTimeout (keepAliveTimeoutBuffer).
const KEEP_ALIVE_BUFFER_MS = 1000;
// Two noisy cores and other test files alongside: a close may come this late (the server checks
// its connections every 250 ms here).
const LATE_MS = 2000;
// The server starts a new connection's clock when it accepts it, which may be handled before the
// client hears of the connection (one process, one event loop, either order; a busy machine may
// put a few hundred ms between them). Still far from any other limit.
const EARLY_MS = 250;
const DRIP_EVERY_MS = 200;
// The status line, and the coded JSON body every error answer has (api/errors.ts onClientError).
const TIMED_OUT = /^HTTP\/1\.1 408 Request Timeout\r\n[^]*\r\n\r\n\{"error":\{"code":"REQUEST_TIMEOUT"/;

let database: TestDatabase;
let app: FastifyInstance;
let port: number;
let code: string;
let logLines: LogLine[];
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  database = await createTestDatabase('slow_clients');
  ({ app, lines: logLines } = await startLoggedApp(
    { after: (fn) => cleanups.push(fn) },
    database.url,
    {
      HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    },
    'trace',
  ));
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
  const created = await createLink(app, { url: 'https://example.com/slow' });
  assert.equal(created.status, 201);
  code = created.body.code as string;
});

after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

/** A raw connection to the app, with what the server sent and when it closed the connection. */
class Client {
  readonly socket: net.Socket;
  /** performance.now() when the connection was open */
  readonly openedAt: number;
  /** ms after openedAt when the server closed the connection (a FIN or a reset) */
  readonly closed: Promise<number>;
  #received = '';
  #drip: NodeJS.Timeout | undefined;

  static async open(): Promise<Client> {
    const socket = net.connect({ host: '127.0.0.1', port });
    await once(socket, 'connect');
    return new Client(socket);
  }

  private constructor(socket: net.Socket) {
    this.socket = socket;
    this.openedAt = performance.now();
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => (this.#received += text));
    // A drip that meets the closed connection gets a reset: that is still the server's close.
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        clearInterval(this.#drip);
        resolve(performance.now() - this.openedAt);
      });
    });
  }

  get received(): string {
    return this.#received;
  }

  /** Sends `head` at once, then one more byte of `tail` every `everyMs`, until closed. */
  drip(head: string, tail: string, everyMs = DRIP_EVERY_MS): void {
    if (head !== '') this.socket.write(head);
    let next = 0;
    this.#drip = setInterval(() => {
      if (!this.socket.destroyed) this.socket.write(tail[next++ % tail.length] ?? '');
    }, everyMs);
  }

  /** ms after openedAt when the server closed it; fails if it is still open `withinMs` after opening. */
  async closedWithin(withinMs: number): Promise<number> {
    const left = withinMs - (performance.now() - this.openedAt);
    // Cancelled once the race is over: a deadline left pending would keep the file's process alive until it passed.
    const deadline = new AbortController();
    const timer = sleep(Math.max(0, left), 'open' as const, { signal: deadline.signal });
    const closedAt = await Promise.race([this.closed, timer]).finally(() => deadline.abort());
    assert.notEqual(closedAt, 'open', `the connection was still open ${withinMs} ms after it opened`);
    return closedAt as number;
  }

  /** Waits for the next whole response (it has a content-length) after `from` characters. */
  async response(from = 0, withinMs = 5000): Promise<RawResponse> {
    const deadline = performance.now() + withinMs;
    for (;;) {
      const parsed = parseResponse(this.#received.slice(from));
      if (parsed !== undefined) return parsed;
      assert.ok(performance.now() < deadline, `no whole response within ${withinMs} ms: ${JSON.stringify(this.#received)}`);
      assert.ok(!this.socket.destroyed, `closed before a whole response: ${JSON.stringify(this.#received)}`);
      await sleep(5);
    }
  }

  destroy(): void {
    clearInterval(this.#drip);
    this.socket.destroy();
  }
}

function assertNoErrorLogged(): void {
  const errors = logLines.filter((line) => line.level >= 50);
  assert.deepEqual(errors, [], 'no slow client makes the server log an error');
}

const headerDrip = () => ['', `GET /${code} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: ${'a'.repeat(1000)}`] as const;
const bodyDrip = () =>
  [
    'POST /links HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    `{"url":"https://example.com/${'a'.repeat(1000)}`,
  ] as const;

test('a client that drips its headers is answered 408 and closed at the headers timeout', async (t) => {
  const client = await Client.open();
  t.after(() => client.destroy());
  client.drip(...headerDrip());

  const closedAt = await client.closedWithin(HEADERS_TIMEOUT_MS + LATE_MS);
  t.diagnostic(`closed ${Math.round(closedAt)} ms after its first byte`);
  assert.ok(closedAt >= HEADERS_TIMEOUT_MS - EARLY_MS, `closed after ${closedAt} ms`);
  assert.match(client.received, TIMED_OUT);
  assertNoErrorLogged();
});

test('a client that sends its headers and drips its body is answered 408 and closed at the request timeout', async (t) => {
  const client = await Client.open();
  t.after(() => client.destroy());
  client.drip(...bodyDrip());

  const closedAt = await client.closedWithin(REQUEST_TIMEOUT_MS + LATE_MS);
  t.diagnostic(`closed ${Math.round(closedAt)} ms after its first byte`);
  // Later than the headers timeout: complete headers stop that clock.
  assert.ok(closedAt >= REQUEST_TIMEOUT_MS - EARLY_MS, `closed after ${closedAt} ms`);
  assert.match(client.received, TIMED_OUT);
  await sleep(50); // the aborted request's handler runs after the close
  assertNoErrorLogged();
});

test('a connection that never sends a byte is closed at the headers timeout', async (t) => {
  const client = await Client.open();
  t.after(() => client.destroy());

  const closedAt = await client.closedWithin(HEADERS_TIMEOUT_MS + LATE_MS);
  t.diagnostic(`closed ${Math.round(closedAt)} ms after it opened`);
  assert.ok(closedAt >= HEADERS_TIMEOUT_MS - EARLY_MS, `closed after ${closedAt} ms`);
  assert.match(client.received, TIMED_OUT);
  assertNoErrorLogged();
});

test('an idle keep-alive connection is closed at the keep-alive timeout, without a response', async (t) => {
  const client = await Client.open();
  t.after(() => client.destroy());
  client.socket.write(`GET /${code} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  const redirect = await client.response();
  const answeredAt = performance.now() - client.openedAt;
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.get('keep-alive'), `timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);

  const closedAt = await client.closedWithin(answeredAt + KEEP_ALIVE_TIMEOUT_MS + KEEP_ALIVE_BUFFER_MS + LATE_MS);
  const idle = closedAt - answeredAt;
  t.diagnostic(`closed ${Math.round(idle)} ms after the response`);
  assert.ok(idle >= KEEP_ALIVE_TIMEOUT_MS - EARLY_MS, `closed after ${idle} ms idle`);
  assert.equal(client.received.length, redirect.length, 'nothing is sent on an idle close');
  assertNoErrorLogged();
});

test('a client slow within every limit is served, request after request on one connection', async (t) => {
  const client = await Client.open();
  t.after(() => client.destroy());
  const body = JSON.stringify({ url: 'https://example.com/patient' });
  const head = `POST /links HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  // Headers in by 350 ms (limit 1000), the whole request by 1400 ms (limit 3500).
  for (const part of [head.slice(0, 20), head.slice(20), body.slice(0, 10), body.slice(10, 20), body.slice(20)]) {
    client.socket.write(part);
    await sleep(350);
  }
  const created = await client.response();
  assert.equal(created.status, 201, created.body);
  const newCode = (JSON.parse(created.body) as { code: string }).code;

  // Idle longer than the headers timeout: between requests only the keep-alive timeout counts.
  await sleep(2 * HEADERS_TIMEOUT_MS);
  const get = `GET /${newCode} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
  client.socket.write(get.slice(0, 10));
  await sleep(300);
  client.socket.write(get.slice(10));
  const redirect = await client.response(created.length);
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.get('location'), 'https://example.com/patient');
  // The connection lived longer than the request timeout: each request has its own clocks.
  assert.ok(performance.now() - client.openedAt > REQUEST_TIMEOUT_MS);
  assert.ok(!client.socket.destroyed);
  assertNoErrorLogged();
});

test('other clients are served while drip connections are open, and the drips are closed in time', async (t) => {
  const drips: { client: Client; limit: number }[] = [];
  t.after(() => {
    for (const { client } of drips) client.destroy();
  });
  for (let i = 0; i < 10; i++) {
    const headers = await Client.open();
    headers.drip(...headerDrip());
    const body = await Client.open();
    body.drip(...bodyDrip());
    const silent = await Client.open();
    drips.push(
      { client: headers, limit: HEADERS_TIMEOUT_MS },
      { client: body, limit: REQUEST_TIMEOUT_MS },
      { client: silent, limit: HEADERS_TIMEOUT_MS },
    );
  }
  let bodyDripsClosed = 0;
  for (const { client, limit } of drips) if (limit === REQUEST_TIMEOUT_MS) void client.closed.then(() => bodyDripsClosed++);

  const origin = `http://127.0.0.1:${port}`;
  const answers = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      if (i % 4 === 0) {
        const res = await fetch(`${origin}/links`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: `https://example.com/meanwhile/${i}` }),
        });
        return res.status;
      }
      const res = await fetch(`${origin}/${code}`, { redirect: 'manual' });
      return res.status;
    }),
  );
  // The body drips stay open 3.5 s: the answers came while they (at least) were all holding on.
  assert.equal(bodyDripsClosed, 0, 'the other clients were served while the drip connections were open');
  assert.deepEqual(
    answers,
    Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? 201 : 302)),
  );

  for (const { client, limit } of drips) {
    const closedAt = await client.closedWithin(limit + LATE_MS);
    assert.ok(closedAt >= limit - EARLY_MS, `closed after ${closedAt} ms (limit ${limit} ms)`);
    assert.match(client.received, TIMED_OUT);
  }
  await sleep(50);
  assertNoErrorLogged();
});

test('the headers timeout stays within the request timeout: by default, and refused otherwise', () => {
  assert.equal(loadConfig({}).headersTimeoutMs, 5000);
  assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '3000' }).headersTimeoutMs, 3000);
  assert.throws(
    () => loadConfig({ REQUEST_TIMEOUT_MS: '3000', HEADERS_TIMEOUT_MS: '4000' }),
    (err: unknown) =>
      err instanceof ConfigError && /HEADERS_TIMEOUT_MS=4000: expected at most REQUEST_TIMEOUT_MS \(3000\)/.test(err.message),
  );
});
