// Who may create what, how large a body is answered, which app URLs a link may open, and which
// hosts the API answers on: docs/security.md. Each test drives the service over HTTP (inject, or
// bytes on a socket where what matters is what the connection does).

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, errorCode, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { parseResponse } from '../helpers/raw-http.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let admin: { authorization: string };
const BRANDED = 'go.acme.example';

before(async () => {
  database = await createTestDatabase('security_creates');
  const keys = await keysWith(database.url, { admin: 'admin' });
  admin = bearer(keys.admin);
});

after(async () => {
  await database.drop();
});

/** The service as it ships: CREATE_REQUIRES_API_KEY unset (testConfig lets tests create without a key). */
const SHIPPED = { CREATE_REQUIRES_API_KEY: '' };
const ANONYMOUS_ON = { CREATE_REQUIRES_API_KEY: 'false' };
/** The workspace's branded domain is served as added: its verification is test/security/domains.test.ts's. */
const DOMAINS_AS_ADDED = { DOMAIN_VERIFICATION: 'false' };

async function listening(t: Cleanup, env: Record<string, string>): Promise<{ app: FastifyInstance; port: number }> {
  const { app } = await startApp(t, database.url, env);
  const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
  return { app, port };
}

interface Exchange {
  /** What came back, as latin1. */
  text: string;
  /** The first socket error (EPIPE, ECONNRESET: the server reset a connection the client was still writing to). */
  error: string | undefined;
  /** The answer arrived before the client wrote its body. */
  answeredBeforeBody: boolean;
}

/**
 * Writes `head`, waits `pauseMs`, then `body` in 64 KiB pieces (each once the previous is taken),
 * reading all the while, until the server ends the connection or `timeoutMs` passes.
 */
function exchange(port: number, head: string, body: Buffer, { pauseMs = 0, timeoutMs = 10_000 } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let bodyStarted = false;
    let answeredBeforeBody = false;
    socket.on('data', (chunk: Buffer) => {
      if (!bodyStarted) answeredBeforeBody = true;
      chunks.push(chunk);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
    });
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), error, answeredBeforeBody }));
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.write(head);
    let at = 0;
    const next = () => {
      if (socket.destroyed || at >= body.length) return;
      bodyStarted = true;
      const piece = body.subarray(at, at + 64 * 1024);
      at += piece.length;
      socket.write(piece, (err) => {
        if (err === undefined || err === null) setImmediate(next);
      });
    };
    setTimeout(next, pauseMs);
  });
}

function bulkHead(length: number | 'chunked', headers = ''): string {
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return `POST /links/bulk HTTP/1.1\r\nHost: sho.rt\r\nContent-Type: application/json\r\n${headers}${framing}\r\n\r\n`;
}

/** A bulk of 1000 links whose JSON is over 3 MiB. */
function bigBulk(): Buffer {
  const links = Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/${'a'.repeat(3200)}/${i}` }));
  return Buffer.from(JSON.stringify({ links }));
}

describe('anonymous creates', () => {
  test('as shipped, a create without an API key is refused 401 API_KEY_REQUIRED', async (t) => {
    const { app } = await startApp(t, database.url, SHIPPED);
    const res = await app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/anonymous' } });
    assert.deepEqual([res.statusCode, errorCode(res)], [401, 'API_KEY_REQUIRED']);
    const keyed = await app.inject({ method: 'POST', url: '/links', headers: admin, payload: { url: 'https://example.com/keyed' } });
    assert.equal(keyed.statusCode, 201, keyed.body);
  });

  test("with anonymous creates on, a workspace's domain, a password, a preview or a 301 is refused 403 naming the field", async (t) => {
    const { app } = await startApp(t, database.url, { ...ANONYMOUS_ON, ...DOMAINS_AS_ADDED });
    const added = await app.inject({ method: 'POST', url: '/domains', headers: admin, payload: { host: BRANDED } });
    assert.ok(added.statusCode === 201 || added.statusCode === 409, added.body);
    const refused: [Record<string, unknown>, string][] = [
      [{ domain: BRANDED }, 'domain'],
      [{ options: { password: 'open sesame' } }, 'options.password'],
      [{ options: { preview: { title: 'Your bank', image: 'https://example.com/logo.png' } } }, 'options.preview'],
      [{ options: { redirectStatus: 301 } }, 'options.redirectStatus'],
      [{ options: { deepLink: { ios: 'myapp://x' } } }, 'options.deepLink'],
    ];
    for (const [extra, field] of refused) {
      const res = await app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/anon', ...extra } });
      assert.equal(res.statusCode, 403, `${field}: ${res.body}`);
      assert.deepEqual(res.json().error?.code, 'ANONYMOUS_CREATE_LIMITED', field);
      assert.equal(res.json().error?.field, field);
    }
    // A plain link on the default domain, with an alias, is still a create without a key.
    const plain = await app.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/plain', alias: 'anon-plain' } });
    assert.equal(plain.statusCode, 201, plain.body);
    // With a key, the same options are taken.
    const keyed = await app.inject({
      method: 'POST',
      url: '/links',
      headers: admin,
      payload: { url: 'https://example.com/k', domain: BRANDED },
    });
    assert.equal(keyed.statusCode, 201, keyed.body);
  });
});

describe('bodies', () => {
  test('a 3 MiB bulk body is answered 413 BODY_TOO_LARGE as JSON, read whole by a client that keeps sending, then the connection ends', async (t) => {
    const { port } = await listening(t, SHIPPED);
    const body = bigBulk();
    assert.ok(body.length > 3 * 1024 * 1024);
    for (const framing of ['length', 'chunked'] as const) {
      const sent =
        framing === 'length' ? body : Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
      const got = await exchange(
        port,
        bulkHead(framing === 'length' ? body.length : 'chunked', `Authorization: ${admin.authorization}\r\n`),
        sent,
      );
      const res = parseResponse(got.text);
      assert.ok(res !== undefined, `${framing}: an answer (got ${JSON.stringify(got.text.slice(0, 200))}, error ${got.error})`);
      assert.equal(res.status, 413, framing);
      assert.equal(res.headers.get('connection'), 'close');
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(JSON.parse(res.body).error.code, 'BODY_TOO_LARGE');
      // The connection ended without a reset while the client was still writing its body.
      assert.equal(got.error, undefined, `${framing}: the server reset the connection under the client's body`);
    }
  });

  test('an anonymous bulk is refused 401 before its body is read: the answer comes to the head alone', async (t) => {
    const { port } = await listening(t, SHIPPED);
    const got = await exchange(port, bulkHead(1024 * 1024), Buffer.alloc(1024 * 1024, 0x20), { pauseMs: 2000, timeoutMs: 6000 });
    const res = parseResponse(got.text);
    assert.ok(res !== undefined, `an answer (got ${JSON.stringify(got.text.slice(0, 200))})`);
    assert.ok(got.answeredBeforeBody, 'answered before any of the body was sent');
    assert.equal(res.status, 401);
    assert.equal(JSON.parse(res.body).error.code, 'API_KEY_REQUIRED');
    assert.equal(res.headers.get('connection'), 'close');
  });
});

test('app URLs of schemes that install, automate, call or message are refused DEEP_LINK_INVALID; an app scheme is taken', async (t) => {
  const { app } = await startApp(t, database.url, SHIPPED);
  const create = (deepLink: Record<string, string>) =>
    app.inject({ method: 'POST', url: '/links', headers: admin, payload: { url: 'https://example.com/app', options: { deepLink } } });
  for (const [platform, url] of [
    ['ios', 'itms-services://?action=download-manifest&url=https://evil.example/app.plist'],
    ['ios', 'shortcuts://run-shortcut?name=Wipe'],
    ['ios', 'tel:+15555550100'],
    ['android', 'sms:+15555550100?body=STOP'],
    ['ios', 'x-apple-reminderkit://x'],
    ['android', 'ms-msdt:/id PCWDiagnostic'],
    ['ios', 'mailto:a@example.com'],
  ] as const) {
    const res = await create({ [platform]: url });
    assert.deepEqual(
      [res.statusCode, errorCode(res), res.json().error?.field],
      [400, 'DEEP_LINK_INVALID', `options.deepLink.${platform}`],
      url,
    );
  }
  const ok = await create({ ios: 'myapp://product/42', android: 'com.example.shop://item/7' });
  assert.equal(ok.statusCode, 201, ok.body);
});

test("a tenant's short domain answers its links only: the API, docs, metrics and readiness there are 404 ROUTE_NOT_ON_HOST", async (t) => {
  const { app } = await startApp(t, database.url, { ...SHIPPED, ...DOMAINS_AS_ADDED });
  const added = await app.inject({ method: 'POST', url: '/domains', headers: admin, payload: { host: BRANDED } });
  assert.ok(added.statusCode === 201 || added.statusCode === 409, added.body);
  const made = await app.inject({
    method: 'POST',
    url: '/links',
    headers: admin,
    payload: { url: 'https://example.com/tenant', alias: 'tenant-link', domain: BRANDED },
  });
  assert.equal(made.statusCode, 201, made.body);
  for (const [method, url] of [
    ['GET', '/metrics'],
    ['GET', '/docs'],
    ['GET', '/docs/json'],
    ['GET', '/readyz'],
    ['GET', '/links'],
    ['POST', '/links'],
    ['GET', '/auth/session'],
    ['GET', '/app/'],
  ] as const) {
    const res = await app.inject({
      method,
      url,
      headers: { host: BRANDED, ...admin },
      ...(method === 'POST' ? { payload: { url: 'https://example.com/x' } } : {}),
    });
    assert.equal(res.statusCode, 404, `${method} ${url} on ${BRANDED}: ${res.body.slice(0, 80)}`);
    assert.equal(errorCode(res), 'ROUTE_NOT_ON_HOST', `${method} ${url} on ${BRANDED}`);
  }
  // Its links, their QR codes and liveness answer there; the API answers on BASE_URL's host, an address and localhost.
  assert.equal((await app.inject({ url: '/tenant-link', headers: { host: BRANDED } })).statusCode, 302);
  assert.equal((await app.inject({ url: `/links/tenant-link/qr?domain=${BRANDED}`, headers: { host: BRANDED } })).statusCode, 200);
  assert.equal((await app.inject({ url: '/healthz', headers: { host: BRANDED } })).statusCode, 200);
  for (const host of ['sho.rt', '10.0.0.7:3000', '[::1]:3000', 'localhost']) {
    assert.equal((await app.inject({ url: '/readyz', headers: { host } })).statusCode, 200, host);
  }
});
