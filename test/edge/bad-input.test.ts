// Every kind of bad input to POST /links and GET /:code gets its own status and stable error code,
// never a 5xx, and nothing is logged as an error.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { ERROR_LEVEL, startLoggedApp, type LogLine } from '../helpers/logs.ts';
import { parseResponse, rawExchange } from '../helpers/raw-http.ts';

interface Case {
  name: string;
  payload: string | Buffer;
  contentType?: string;
  status: number;
  code: string;
}

const json = (body: unknown) => JSON.stringify(body);
const url = 'https://example.com/';

const cases: Case[] = [
  // body framing
  { name: 'malformed JSON', payload: '{"url": "https://example.com/"', status: 400, code: 'BODY_INVALID_JSON' },
  { name: 'trailing garbage after JSON', payload: '{"url": "https://example.com/"} x', status: 400, code: 'BODY_INVALID_JSON' },
  { name: 'empty body', payload: '', status: 400, code: 'BODY_EMPTY' },
  { name: '__proto__ key', payload: '{"url":"https://example.com/","__proto__":{"x":1}}', status: 400, code: 'BODY_INVALID_JSON' },
  {
    name: 'constructor.prototype key',
    payload: '{"url":"https://example.com/","constructor":{"prototype":{"x":1}}}',
    status: 400,
    code: 'BODY_INVALID_JSON',
  },
  { name: 'text/plain content type', payload: json({ url }), contentType: 'text/plain', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  {
    name: 'form content type',
    payload: 'url=https://example.com/',
    contentType: 'application/x-www-form-urlencoded',
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  { name: 'body over 8 KiB', payload: json({ url: `https://example.com/${'a'.repeat(9000)}` }), status: 413, code: 'BODY_TOO_LARGE' },
  { name: 'body of 1 MiB', payload: Buffer.alloc(1024 * 1024, 0x20), status: 413, code: 'BODY_TOO_LARGE' },
  {
    name: 'multipart content type',
    payload: '--x\r\n\r\nurl\r\n--x--',
    contentType: 'multipart/form-data; boundary=x',
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'nested __proto__ key',
    payload: '{"url":"https://example.com/","alias":{"__proto__":{"admin":true}}}',
    status: 400,
    code: 'BODY_INVALID_JSON',
  },
  { name: 'NUL byte in the JSON text', payload: '{"url":"https://example.com/"}\u0000', status: 400, code: 'BODY_INVALID_JSON' },
  // shape
  { name: 'an array body', payload: json([url]), status: 400, code: 'BODY_INVALID' },
  { name: 'a string body', payload: json(url), status: 400, code: 'BODY_INVALID' },
  { name: 'null body', payload: 'null', status: 400, code: 'BODY_INVALID' },
  { name: 'missing url', payload: json({ alias: 'abcdef' }), status: 400, code: 'BODY_INVALID' },
  { name: 'unknown field', payload: json({ url, colour: 'x' }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as an array', payload: json({ url: [url] }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as a number', payload: json({ url: 42 }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as an object', payload: json({ url: { href: url } }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as null', payload: json({ url: null }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as a boolean', payload: json({ url: true }), status: 400, code: 'BODY_INVALID' },
  { name: 'alias as a number', payload: json({ url, alias: 12345 }), status: 400, code: 'BODY_INVALID' },
  { name: 'expiresAt as a number', payload: json({ url, expiresAt: 1893456000 }), status: 400, code: 'BODY_INVALID' },
  { name: 'deep nesting', payload: `{"url":"${url}","alias":${'['.repeat(2000)}${']'.repeat(2000)}}`, status: 400, code: 'BODY_INVALID' },
  // url rules
  { name: 'javascript: URL', payload: json({ url: 'javascript:alert(1)' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  {
    name: 'javascript: URL with a tab inside',
    payload: json({ url: 'java\tscript:alert(1)' }),
    status: 400,
    code: 'URL_CONTROL_CHARACTERS',
  },
  { name: 'data: URL', payload: json({ url: 'data:text/html,hi' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  { name: 'file: URL', payload: json({ url: 'file:///etc/passwd' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  { name: 'vbscript: URL', payload: json({ url: 'VBScript:msgbox' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  { name: 'scheme-relative URL', payload: json({ url: '//evil.example/' }), status: 400, code: 'URL_NOT_ABSOLUTE' },
  { name: 'relative URL', payload: json({ url: 'evil.example/x' }), status: 400, code: 'URL_NOT_ABSOLUTE' },
  { name: 'credentials in URL', payload: json({ url: 'https://admin:pw@example.com/' }), status: 400, code: 'URL_CREDENTIALS_NOT_ALLOWED' },
  { name: 'NUL in URL', payload: json({ url: 'https://example.com/\u0000' }), status: 400, code: 'URL_CONTROL_CHARACTERS' },
  { name: 'CR/LF in URL', payload: json({ url: 'https://example.com/\r\nSet-Cookie: x=1' }), status: 400, code: 'URL_CONTROL_CHARACTERS' },
  {
    name: 'right-to-left override in URL',
    payload: json({ url: 'https://example.com/\u202egpj.exe' }),
    status: 400,
    code: 'URL_CONTROL_CHARACTERS',
  },
  {
    name: 'URL over 2048 characters',
    payload: json({ url: `https://example.com/${'a'.repeat(2040)}` }),
    status: 400,
    code: 'URL_TOO_LONG',
  },
  { name: 'URL pointing at this service', payload: json({ url: 'https://sho.rt/abc' }), status: 400, code: 'URL_SELF_REFERENCE' },
  { name: 'URL that does not parse', payload: json({ url: 'https://exa mple.com/' }), status: 400, code: 'URL_INVALID' },
  { name: 'line separator in URL', payload: json({ url: 'https://example.com/\u2028x' }), status: 400, code: 'URL_CONTROL_CHARACTERS' },
  {
    name: 'zero-width space in the host',
    payload: json({ url: 'https://exa\u200bmple.com/' }),
    status: 400,
    code: 'URL_CONTROL_CHARACTERS',
  },
  // javascript: in disguise
  { name: 'javascript: in mixed case', payload: json({ url: 'JaVaScRiPt:alert(1)' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  { name: 'javascript: after a space', payload: json({ url: ' javascript:alert(1)' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  {
    name: 'javascript: after a control character',
    payload: json({ url: '\u0001javascript:alert(1)' }),
    status: 400,
    code: 'URL_CONTROL_CHARACTERS',
  },
  {
    name: 'javascript: with slashes and an encoded newline',
    payload: json({ url: 'javascript://example.com/%0aalert(1)' }),
    status: 400,
    code: 'URL_SCHEME_NOT_ALLOWED',
  },
  { name: 'javascript: percent-encoded', payload: json({ url: '%6Aavascript:alert(1)' }), status: 400, code: 'URL_NOT_ABSOLUTE' },
  { name: 'javascript: with an HTML entity', payload: json({ url: 'javascript&colon;alert(1)' }), status: 400, code: 'URL_NOT_ABSOLUTE' },
  // other parsers' disagreements
  { name: 'https:\\\\host', payload: json({ url: 'https:\\\\evil.example/' }), status: 400, code: 'URL_NOT_ABSOLUTE' },
  { name: 'https:/host with one slash', payload: json({ url: 'https:/evil.example/' }), status: 400, code: 'URL_NOT_ABSOLUTE' },
  {
    name: 'a user name that looks like the host',
    payload: json({ url: 'https://example.com@evil.example/' }),
    status: 400,
    code: 'URL_CREDENTIALS_NOT_ALLOWED',
  },
  {
    name: 'an empty user with a password',
    payload: json({ url: 'https://:pw@example.com/' }),
    status: 400,
    code: 'URL_CREDENTIALS_NOT_ALLOWED',
  },
  // this service's own host, however written
  {
    name: 'own host in capitals with a trailing dot',
    payload: json({ url: 'https://SHO.RT./abc' }),
    status: 400,
    code: 'URL_SELF_REFERENCE',
  },
  {
    name: 'own host with a port and another scheme',
    payload: json({ url: 'http://sho.rt:8443/abc' }),
    status: 400,
    code: 'URL_SELF_REFERENCE',
  },
  { name: 'own host percent-encoded', payload: json({ url: 'https://sh%6F.rt/abc' }), status: 400, code: 'URL_SELF_REFERENCE' },
  // private and non-public targets, in every notation
  { name: 'loopback as a decimal number', payload: json({ url: 'http://2130706433/' }), status: 400, code: 'URL_PRIVATE_ADDRESS' },
  { name: 'loopback in hex', payload: json({ url: 'http://0x7f.0.0.1/' }), status: 400, code: 'URL_PRIVATE_ADDRESS' },
  { name: 'loopback in octal', payload: json({ url: 'http://0177.0.0.1/' }), status: 400, code: 'URL_PRIVATE_ADDRESS' },
  { name: 'IPv6 loopback', payload: json({ url: 'http://[::1]:8080/' }), status: 400, code: 'URL_PRIVATE_ADDRESS' },
  {
    name: 'IPv4-mapped IPv6 private address',
    payload: json({ url: 'http://[::ffff:10.0.0.1]/' }),
    status: 400,
    code: 'URL_PRIVATE_ADDRESS',
  },
  {
    name: 'cloud metadata address',
    payload: json({ url: 'http://169.254.169.254/latest/meta-data/' }),
    status: 400,
    code: 'URL_PRIVATE_ADDRESS',
  },
  { name: 'unique-local IPv6', payload: json({ url: 'http://[fd00::1]/' }), status: 400, code: 'URL_PRIVATE_ADDRESS' },
  { name: 'localhost', payload: json({ url: 'http://localhost:3000/admin' }), status: 400, code: 'URL_PRIVATE_ADDRESS' },
  { name: 'a single-label host', payload: json({ url: 'http://router/' }), status: 400, code: 'URL_PRIVATE_ADDRESS' },
  // abuse controls
  { name: 'another URL shortener', payload: json({ url: 'https://bit.ly/3xYz' }), status: 400, code: 'URL_SHORTENER_NOT_ALLOWED' },
  {
    name: 'a subdomain of a blocked domain',
    payload: json({ url: 'https://www.blocked.example/' }),
    status: 400,
    code: 'URL_DOMAIN_BLOCKED',
  },
  {
    name: 'a blocked IDN domain written in Unicode',
    payload: json({ url: 'https://пример.рф/' }),
    status: 400,
    code: 'URL_DOMAIN_BLOCKED',
  },
  // alias rules
  { name: 'alias too short', payload: json({ url, alias: 'ab' }), status: 400, code: 'ALIAS_INVALID' },
  { name: 'alias too long', payload: json({ url, alias: 'a'.repeat(65) }), status: 400, code: 'ALIAS_INVALID' },
  { name: 'alias with a slash', payload: json({ url, alias: 'a/b/c' }), status: 400, code: 'ALIAS_INVALID' },
  { name: 'alias with a dot-dot', payload: json({ url, alias: '..abc' }), status: 400, code: 'ALIAS_INVALID' },
  { name: 'alias with a unicode look-alike', payload: json({ url, alias: 'pаypal' }), status: 400, code: 'ALIAS_INVALID' },
  { name: 'reserved alias', payload: json({ url, alias: 'healthz' }), status: 400, code: 'ALIAS_RESERVED' },
  { name: 'reserved alias in another case', payload: json({ url, alias: 'Links' }), status: 400, code: 'ALIAS_RESERVED' },
  // expiry rules
  { name: 'expiresAt in the past', payload: json({ url, expiresAt: '2001-01-01T00:00:00Z' }), status: 400, code: 'EXPIRES_AT_IN_PAST' },
  { name: 'expiresAt without a zone', payload: json({ url, expiresAt: '2099-01-01T00:00:00' }), status: 400, code: 'EXPIRES_AT_INVALID' },
  { name: 'expiresAt that is no date', payload: json({ url, expiresAt: 'next week' }), status: 400, code: 'EXPIRES_AT_INVALID' },
];

/** A path the way a hostile client sends it: raw bytes in the request line, through the server's listener. */
interface PathCase {
  name: string;
  requestLine: string;
  status: number;
  code: string;
}

const pathCases: PathCase[] = [
  { name: 'path traversal', requestLine: 'GET /../../etc/passwd HTTP/1.1', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'encoded path traversal', requestLine: 'GET /%2e%2e%2fetc%2fpasswd HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'encoded slash', requestLine: 'GET /abc%2Fdef HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'encoded NUL', requestLine: 'GET /abc%00def HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'raw NUL', requestLine: 'GET /abc\u0000def HTTP/1.1', status: 400, code: 'BAD_REQUEST' },
  { name: 'encoded CR/LF header injection', requestLine: 'GET /abc%0d%0aSet-Cookie:%20x=1 HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'raw space in the path', requestLine: 'GET /abc def HTTP/1.1', status: 400, code: 'BAD_REQUEST' },
  { name: 'raw tab in the path', requestLine: 'GET /abc\tdef HTTP/1.1', status: 400, code: 'BAD_REQUEST' },
  { name: 'code one character too long', requestLine: `GET /${'a'.repeat(65)} HTTP/1.1`, status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'code of 5000 characters', requestLine: `GET /${'a'.repeat(5000)} HTTP/1.1`, status: 404, code: 'LINK_NOT_FOUND' },
  // Within one read of the socket: a longer one is cut short with a reset before the client reads the answer.
  { name: 'request line over 16 KiB', requestLine: `GET /${'a'.repeat(17_000)} HTTP/1.1`, status: 431, code: 'HEADERS_TOO_LARGE' },
  { name: 'Cyrillic look-alike, percent-encoded', requestLine: 'GET /p%D0%B0ypal HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'Cyrillic look-alike, raw UTF-8', requestLine: 'GET /p\u00d0\u00b0ypal HTTP/1.1', status: 400, code: 'BAD_REQUEST' },
  { name: 'right-to-left override, percent-encoded', requestLine: 'GET /%E2%80%AEabc HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'broken percent-encoding', requestLine: 'GET /%zz HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'lone percent sign', requestLine: 'GET /abc% HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'dot segment', requestLine: 'GET /.. HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'matrix parameter', requestLine: 'GET /abc;jsessionid=1 HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'absolute-form request target', requestLine: 'GET http://evil.example/abcdef HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'asterisk-form request target', requestLine: 'GET * HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'empty path segment', requestLine: 'GET // HTTP/1.1', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'reserved word as a code', requestLine: 'GET /admin HTTP/1.1', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'unknown method', requestLine: 'FOO /abcdef HTTP/1.1', status: 400, code: 'BAD_REQUEST' },
  { name: 'a method with no route', requestLine: 'PUT /abcdef HTTP/1.1', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'request line without a version', requestLine: 'GET /abcdef', status: 404, code: 'LINK_NOT_FOUND' },
  { name: 'unknown HTTP version', requestLine: 'GET /abcdef HTTP/7.0', status: 400, code: 'BAD_REQUEST' },
];

/**
 * A whole request as bytes, for what Node itself would have answered (or dropped) before any
 * route: Host (RFC 9112, 3.2), Expect, CONNECT, and bodies the service does not decode.
 */
interface RawCase {
  name: string;
  request: string;
  status: number;
  code: string;
}

const gzipped = (body: string) => gzipSync(body).toString('latin1');
const linkBody = '{"url":"https://example.com/raw"}';
const post = (headers: string, body: string) =>
  `POST /links HTTP/1.1\r\nHost: sho.rt\r\n${headers}Content-Length: ${Buffer.byteLength(body, 'latin1')}\r\nConnection: close\r\n\r\n${body}`;

const rawCases: RawCase[] = [
  { name: 'HTTP/1.1 without Host', request: 'GET /abcdef HTTP/1.1\r\nConnection: close\r\n\r\n', status: 400, code: 'HOST_INVALID' },
  {
    name: 'two Host headers',
    request: 'GET /abcdef HTTP/1.1\r\nHost: sho.rt\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
    status: 400,
    code: 'HOST_INVALID',
  },
  {
    name: 'two Host headers, differently cased',
    request: 'GET /links HTTP/1.1\r\nhost: sho.rt\r\nHOST: sho.rt\r\nConnection: close\r\n\r\n',
    status: 400,
    code: 'HOST_INVALID',
  },
  {
    name: 'a Host with a space',
    request: 'GET /abcdef HTTP/1.1\r\nHost: exa mple.com\r\nConnection: close\r\n\r\n',
    status: 400,
    code: 'HOST_INVALID',
  },
  {
    name: 'a Host with user info',
    request: 'GET /abcdef HTTP/1.1\r\nHost: user@sho.rt\r\nConnection: close\r\n\r\n',
    status: 400,
    code: 'HOST_INVALID',
  },
  {
    name: 'a Host with a path',
    request: 'GET /abcdef HTTP/1.1\r\nHost: sho.rt/x\r\nConnection: close\r\n\r\n',
    status: 400,
    code: 'HOST_INVALID',
  },
  // Allowed: HTTP/1.0 has no Host requirement, and an empty Host names no authority (RFC 9112, 3.2).
  { name: 'HTTP/1.0 without Host (allowed)', request: 'GET /abcdef HTTP/1.0\r\n\r\n', status: 404, code: 'LINK_NOT_FOUND' },
  {
    name: 'an empty Host (allowed)',
    request: 'GET /abcdef HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n',
    status: 404,
    code: 'LINK_NOT_FOUND',
  },
  {
    name: 'an IPv6 Host with a port (allowed)',
    request: 'GET /abcdef HTTP/1.1\r\nHost: [::1]:3000\r\nConnection: close\r\n\r\n',
    status: 404,
    code: 'LINK_NOT_FOUND',
  },
  {
    name: 'an unknown expectation',
    request: 'GET /abcdef HTTP/1.1\r\nHost: sho.rt\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n',
    status: 417,
    code: 'EXPECTATION_FAILED',
  },
  { name: 'CONNECT', request: 'CONNECT sho.rt:443 HTTP/1.1\r\nHost: sho.rt:443\r\n\r\n', status: 405, code: 'METHOD_NOT_ALLOWED' },
  {
    name: 'a gzip-encoded body',
    request: post('Content-Type: application/json\r\nContent-Encoding: gzip\r\n', gzipped(linkBody)),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a body said to be gzip that is not',
    request: post('Content-Type: application/json\r\nContent-Encoding: gzip\r\n', linkBody),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'JSON in latin1',
    request: post('Content-Type: application/json; charset=latin1\r\n', '{"url":"https://example.com/caf\u00e9"}'),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'JSON in UTF-16, quoted',
    request: post('Content-Type: application/json; charset="UTF-16"\r\n', linkBody),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'a QR code option given twice',
    request: 'GET /links/abcdef/qr?size=100&size=200 HTTP/1.1\r\nHost: sho.rt\r\nConnection: close\r\n\r\n',
    status: 400,
    code: 'QR_OPTIONS_INVALID',
  },
];

let database: TestDatabase;
let app: FastifyInstance;
let pool: pg.Pool;
let lines: LogLine[];
let port: number;
/** Links the tests meant to create. */
let created = 0;
const cleanups: (() => Promise<void>)[] = [];
before(async () => {
  database = await createTestDatabase('bad_input');
  ({ app, pool, lines } = await startLoggedApp({ after: (fn) => cleanups.push(fn) }, database.url, {
    BLOCKED_DOMAINS: 'blocked.example, пример.рф',
  }));
  port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

for (const c of cases) {
  test(`POST /links: ${c.name} → ${c.status} ${c.code}`, async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/links',
      headers: { 'content-type': c.contentType ?? 'application/json' },
      payload: c.payload,
    });
    assert.equal(res.statusCode, c.status, res.body);
    const body = res.json<{ error: { code: string; message: string } }>();
    assert.equal(body.error.code, c.code);
    assert.ok(body.error.message.length > 0);
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });
}

for (const c of pathCases) {
  test(`GET path: ${c.name} → ${c.status} ${c.code}`, async () => {
    const text = await rawExchange(port, Buffer.from(`${c.requestLine}\r\nHost: sho.rt\r\nConnection: close\r\n\r\n`, 'latin1'));
    const res = parseResponse(text);
    assert.ok(res !== undefined, text);
    assert.equal(res.status, c.status, res.body);
    const body = JSON.parse(res.body) as { error: { code: string; message: string } };
    assert.equal(body.error.code, c.code);
    assert.ok(body.error.message.length > 0);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.ok(!res.headers.has('set-cookie'));
  });
}

for (const c of rawCases) {
  test(`raw request: ${c.name} → ${c.status} ${c.code}`, async () => {
    const res = parseResponse(await rawExchange(port, Buffer.from(c.request, 'latin1')));
    assert.ok(res !== undefined, 'no answer');
    assert.equal(res.status, c.status, res.body);
    const body = JSON.parse(res.body) as { error: { code: string; message: string } };
    assert.equal(body.error.code, c.code);
    assert.ok(body.error.message.length > 0);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  });
}

test('raw request: two Authorization headers, the first a valid key → 401 API_KEY_INVALID (Node would keep the first)', async () => {
  const { secret } = await createApiKey(pool, { name: 'raw requests' });
  const request = post(
    `Authorization: Bearer ${secret}\r\nAuthorization: Bearer sk_${'B'.repeat(43)}\r\nContent-Type: application/json\r\n`,
    linkBody,
  );
  const res = parseResponse(await rawExchange(port, Buffer.from(request, 'latin1')));
  assert.equal(res?.status, 401, res?.body);
  assert.equal((JSON.parse(res?.body ?? '{}') as { error?: { code: string } }).error?.code, 'API_KEY_INVALID');
});

test('raw request: UTF-8 said explicitly, in any case, and Expect: 100-continue are served', async () => {
  for (const request of [
    post('Content-Type: application/json; charset=UTF-8\r\n', '{"url":"https://example.com/utf8"}'),
    post('Content-Type: application/json; charset="utf-8"\r\nContent-Encoding: identity\r\n', '{"url":"https://example.com/identity"}'),
  ]) {
    const res = parseResponse(await rawExchange(port, Buffer.from(request, 'latin1')));
    assert.equal(res?.status, 201, res?.body);
  }
  const continued = await rawExchange(
    port,
    Buffer.from(post('Content-Type: application/json\r\nExpect: 100-continue\r\n', '{"url":"https://example.com/continued"}'), 'latin1'),
  );
  assert.match(continued, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  // Three links were stored by this test: the table check below expects them.
  created += 3;
});

test('nothing else from the tables was stored, and nothing was logged as an error', async () => {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM links');
  assert.equal(rows[0]?.n, created);
  assert.deepEqual(
    lines.filter((line) => line.level >= ERROR_LEVEL),
    [],
  );
});
