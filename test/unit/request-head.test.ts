// The fast path's parser on its own: what it takes, what it hands to node:http, and that a head
// cut anywhere is only ever "incomplete" (test/edge/fast-path-differential.test.ts compares it with
// node:http over sockets).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acceptOf, HANDOFF, INCOMPLETE, MAX_HEAD_BYTES, parseHead, type RequestHead } from '../../src/edge/request-head.ts';

const parse = (text: string, start = 0) => parseHead(Buffer.from(text, 'latin1'), start);

function taken(text: string): RequestHead {
  const result = parse(text);
  assert.ok(typeof result === 'object', `expected ${JSON.stringify(text)} to be taken, got ${JSON.stringify(result)}`);
  return result;
}

test('a redirect request is taken, with the fields later features read and the length it took', () => {
  const text =
    'GET /abc123?utm=x&y=%41 HTTP/1.1\r\nhOsT: sho.rt:8080\r\nUser-Agent:  Mozilla/5.0 (X11)\r\n' +
    'referer: https://a.example/\r\nX-Forwarded-For: 203.0.113.9, 10.0.0.1\r\nX-Forwarded-Host: go.example.com\r\n' +
    'Accept-Language: de-CH,de;q=0.9\r\nX-Other: 1\r\n\r\n';
  const bytes = `${text}GET /next HTTP/1.1\r\n`;
  const { source, queryStart, queryEnd, ...head } = taken(bytes);
  // The query stays in the bytes read, for a link's rules to take (fast-path.ts).
  assert.equal(source.toString('latin1', queryStart, queryEnd), 'utm=x&y=%41');
  assert.equal(taken('GET /abc HTTP/1.1\r\nHost: x\r\n\r\n').queryStart, 0);
  assert.equal(source.toString('latin1', 0, 3), 'GET');
  assert.deepEqual(head, {
    head: false,
    path: 'abc123',
    host: 'sho.rt:8080',
    userAgent: 'Mozilla/5.0 (X11)',
    referer: 'https://a.example/',
    forwardedFor: '203.0.113.9, 10.0.0.1',
    forwardedHost: 'go.example.com',
    acceptLanguage: 'de-CH,de;q=0.9',
    cookie: undefined,
    qr: false,
    start: 0,
    length: text.length,
  });
  assert.equal(taken('HEAD /abc HTTP/1.1\r\nHost: x\r\n\r\n').head, true);
  assert.equal(taken('GET /abc HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n').host, undefined);
  assert.equal(taken('GET /abc HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n').path, 'abc');
  // The Cookie header, kept for a protected link's pass; two are node:http's to join.
  assert.equal(taken('GET /abc HTTP/1.1\r\nHost: x\r\ncOOkie: a=1; link-pass=2.x\r\n\r\n').cookie, 'a=1; link-pass=2.x');
  assert.equal(parse('GET /abc HTTP/1.1\r\nHost: x\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n'), HANDOFF);
});

test('the query of a QR code (exactly qr=1) marks the request as a scan; any other query does not', () => {
  assert.equal(taken('GET /abc?qr=1 HTTP/1.1\r\nHost: x\r\n\r\n').qr, true);
  for (const query of ['', '?', '?qr', '?qr=0', '?qr=1&x=1', '?x=1&qr=1', '?qr=10', '?QR=1']) {
    assert.equal(taken(`GET /abc${query} HTTP/1.1\r\nHost: x\r\n\r\n`).qr, false, query);
  }
});

test("a path of a code's characters is taken whatever its length or word: the redirect handler tells codes from reserved words", () => {
  for (const path of ['ab', 'healthz', 'LINKS', 'x'.repeat(65)]) assert.equal(taken(`GET /${path} HTTP/1.1\r\nHost: x\r\n\r\n`).path, path);
});

test('a second request in the same bytes is read from where the first ended', () => {
  const one = 'GET /first HTTP/1.1\r\nHost: x\r\n\r\n';
  const both = `${one}HEAD /second HTTP/1.1\r\nHost: x\r\n\r\n`;
  assert.equal(taken(both).path, 'first');
  const second = parse(both, one.length);
  assert.ok(typeof second === 'object');
  assert.equal(second.path, 'second');
  assert.equal(second.head, true);
});

test('a head cut at any byte is incomplete, never taken or handed off', () => {
  const text = 'HEAD /abc123?q=1 HTTP/1.1\r\nHost: sho.rt\r\nUser-Agent: x\r\nContent-Length: 0\r\n\r\n';
  for (let cut = 0; cut < text.length; cut++) {
    assert.equal(parse(text.slice(0, cut)), INCOMPLETE, `cut after ${cut} bytes: ${JSON.stringify(text.slice(0, cut))}`);
  }
  assert.equal(typeof parse(text), 'object');
});

test('everything the fast path cannot prove it understands is handed to node:http', () => {
  const handedOff: Record<string, string> = {
    'lowercase method': 'get /abc HTTP/1.1\r\nHost: x\r\n\r\n',
    'another method': 'POST /abc HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
    OPTIONS: 'OPTIONS /abc HTTP/1.1\r\nHost: x\r\n\r\n',
    'absolute form': 'GET http://x/abc HTTP/1.1\r\nHost: x\r\n\r\n',
    'asterisk form': 'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
    'the root': 'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
    'two segments': 'GET /abc/def HTTP/1.1\r\nHost: x\r\n\r\n',
    'a double slash': 'GET //abc HTTP/1.1\r\nHost: x\r\n\r\n',
    'percent-encoding in the path': 'GET /%41bc HTTP/1.1\r\nHost: x\r\n\r\n',
    'a fragment': 'GET /abc#x HTTP/1.1\r\nHost: x\r\n\r\n',
    'a space in the query': 'GET /abc?a b HTTP/1.1\r\nHost: x\r\n\r\n',
    'HTTP/0.9': 'GET /abc\r\n\r\n',
    'HTTP/1.2': 'GET /abc HTTP/1.2\r\nHost: x\r\n\r\n',
    'HTTP/2 preface': 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    'a leading empty line': '\r\nGET /abc HTTP/1.1\r\nHost: x\r\n\r\n',
    'two spaces': 'GET  /abc HTTP/1.1\r\nHost: x\r\n\r\n',
    'bare LF ending the line': 'GET /abc HTTP/1.1\nHost: x\n\n',
    'bare CR': 'GET /abc HTTP/1.1\r\nHost: x\rY: z\r\n\r\n',
    'NUL in a value': 'GET /abc HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n',
    'obs-text in a value': 'GET /abc HTTP/1.1\r\nHost: x\r\nUser-Agent: caf\xe9\r\n\r\n',
    'obs-fold': 'GET /abc HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n',
    'a space before the colon': 'GET /abc HTTP/1.1\r\nHost : x\r\n\r\n',
    'an empty field name': 'GET /abc HTTP/1.1\r\nHost: x\r\n: y\r\n\r\n',
    'trailing spaces in a value': 'GET /abc HTTP/1.1\r\nHost: x \r\n\r\n',
    'no Host on HTTP/1.1': 'GET /abc HTTP/1.1\r\nUser-Agent: x\r\n\r\n',
    'two Hosts': 'GET /abc HTTP/1.1\r\nHost: x\r\nHost: x\r\n\r\n',
    'two Hosts on HTTP/1.0': 'GET /abc HTTP/1.0\r\nHost: x\r\nHost: y\r\nConnection: keep-alive\r\n\r\n',
    'an invalid Host': 'GET /abc HTTP/1.1\r\nHost: a b\r\n\r\n',
    'a Host with a path': 'GET /abc HTTP/1.1\r\nHost: x/y\r\n\r\n',
    'a Content-Length other than 0': 'GET /abc HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello',
    'Content-Length: 00': 'GET /abc HTTP/1.1\r\nHost: x\r\nContent-Length: 00\r\n\r\n',
    'two Content-Lengths': 'GET /abc HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n',
    'Transfer-Encoding': 'GET /abc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    'CL and TE': 'GET /abc HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n',
    Expect: 'GET /abc HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n',
    Upgrade: 'GET /abc HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    'Connection: close': 'GET /abc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    'HTTP/1.0 without keep-alive': 'GET /abc HTTP/1.0\r\n\r\n',
    'a list in Connection': 'GET /abc HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, TE\r\n\r\n',
    'two Connection fields': 'GET /abc HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nConnection: keep-alive\r\n\r\n',
    'two User-Agents': 'GET /abc HTTP/1.1\r\nHost: x\r\nUser-Agent: a\r\nUser-Agent: b\r\n\r\n',
    'two X-Forwarded-For': 'GET /abc HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For: 2.2.2.2\r\n\r\n',
    'more than 100 fields': `GET /abc HTTP/1.1\r\nHost: x\r\n${'A: b\r\n'.repeat(100)}\r\n`,
  };
  for (const [name, text] of Object.entries(handedOff)) assert.equal(parse(text), HANDOFF, name);
});

test('a head longer than the fast path reads is handed off, complete or not', () => {
  const long = `GET /abc HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(MAX_HEAD_BYTES)}`;
  assert.equal(parse(long), HANDOFF);
  assert.equal(parse(`${long}\r\n\r\n`), HANDOFF);
  const fits = `GET /abc HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(MAX_HEAD_BYTES - 100)}\r\n\r\n`;
  assert.equal(taken(fits).path, 'abc');
});

test('Accept is read again from the bytes only when asked: in any case, repeated ones joined as node:http joins them', () => {
  const before = 'GET /x HTTP/1.1\r\nHost: x\r\n\r\n';
  const text =
    'GET /abc HTTP/1.1\r\nHost: x\r\nAccept-Language: de\r\naCCePt:  text/html,*/*;q=0.8\r\nX-Accept: no\r\nACCEPT: application/json\r\n\r\n';
  const buf = Buffer.from(before + text + 'GET /y HTTP/1.1\r\nAccept: image/png\r\n\r\n', 'latin1');
  const head = parseHead(buf, before.length);
  assert.ok(typeof head === 'object');
  assert.equal(head.start, before.length);
  assert.equal(acceptOf(head), 'text/html,*/*;q=0.8, application/json');
  assert.equal(acceptOf(taken('GET /abc HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n')), undefined);
  assert.equal(acceptOf(taken('GET /abc HTTP/1.1\r\nHost: x\r\nAccept:\r\n\r\n')), '');
});
