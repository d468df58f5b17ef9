// Every kind of bad POST /links input gets its own status and stable error code, never a 5xx.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { startApp } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';


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
  { name: 'constructor.prototype key', payload: '{"url":"https://example.com/","constructor":{"prototype":{"x":1}}}', status: 400, code: 'BODY_INVALID_JSON' },
  { name: 'text/plain content type', payload: json({ url }), contentType: 'text/plain', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'form content type', payload: 'url=https://example.com/', contentType: 'application/x-www-form-urlencoded', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'body over 8 KiB', payload: json({ url: `https://example.com/${'a'.repeat(9000)}` }), status: 413, code: 'BODY_TOO_LARGE' },
  // shape
  { name: 'an array body', payload: json([url]), status: 400, code: 'BODY_INVALID' },
  { name: 'a string body', payload: json(url), status: 400, code: 'BODY_INVALID' },
  { name: 'null body', payload: 'null', status: 400, code: 'BODY_INVALID' },
  { name: 'missing url', payload: json({ alias: 'abcdef' }), status: 400, code: 'BODY_INVALID' },
  { name: 'unknown field', payload: json({ url, tags: ['x'] }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as an array', payload: json({ url: [url] }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as a number', payload: json({ url: 42 }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as an object', payload: json({ url: { href: url } }), status: 400, code: 'BODY_INVALID' },
  { name: 'url as null', payload: json({ url: null }), status: 400, code: 'BODY_INVALID' },
  { name: 'alias as a number', payload: json({ url, alias: 12345 }), status: 400, code: 'BODY_INVALID' },
  { name: 'expiresAt as a number', payload: json({ url, expiresAt: 1893456000 }), status: 400, code: 'BODY_INVALID' },
  { name: 'deep nesting', payload: `{"url":"${url}","alias":${'['.repeat(2000)}${']'.repeat(2000)}}`, status: 400, code: 'BODY_INVALID' },
  // url rules
  { name: 'javascript: URL', payload: json({ url: 'javascript:alert(1)' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  { name: 'javascript: URL with a tab inside', payload: json({ url: 'java\tscript:alert(1)' }), status: 400, code: 'URL_CONTROL_CHARACTERS' },
  { name: 'data: URL', payload: json({ url: 'data:text/html,hi' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  { name: 'file: URL', payload: json({ url: 'file:///etc/passwd' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  { name: 'vbscript: URL', payload: json({ url: 'VBScript:msgbox' }), status: 400, code: 'URL_SCHEME_NOT_ALLOWED' },
  { name: 'scheme-relative URL', payload: json({ url: '//evil.example/' }), status: 400, code: 'URL_NOT_ABSOLUTE' },
  { name: 'relative URL', payload: json({ url: 'evil.example/x' }), status: 400, code: 'URL_NOT_ABSOLUTE' },
  { name: 'credentials in URL', payload: json({ url: 'https://admin:pw@example.com/' }), status: 400, code: 'URL_CREDENTIALS_NOT_ALLOWED' },
  { name: 'NUL in URL', payload: json({ url: 'https://example.com/\u0000' }), status: 400, code: 'URL_CONTROL_CHARACTERS' },
  { name: 'CR/LF in URL', payload: json({ url: 'https://example.com/\r\nSet-Cookie: x=1' }), status: 400, code: 'URL_CONTROL_CHARACTERS' },
  { name: 'right-to-left override in URL', payload: json({ url: 'https://example.com/\u202egpj.exe' }), status: 400, code: 'URL_CONTROL_CHARACTERS' },
  { name: 'URL over 2048 characters', payload: json({ url: `https://example.com/${'a'.repeat(2040)}` }), status: 400, code: 'URL_TOO_LONG' },
  { name: 'URL pointing at this service', payload: json({ url: 'https://sho.rt/abc' }), status: 400, code: 'URL_SELF_REFERENCE' },
  { name: 'URL that does not parse', payload: json({ url: 'https://exa mple.com/' }), status: 400, code: 'URL_INVALID' },
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

let database: TestDatabase;
let app: FastifyInstance;
let pool: pg.Pool;
const cleanups: (() => Promise<void>)[] = [];
before(async () => {
  database = await createTestDatabase('bad_input');
  ({ app, pool } = await startApp({ after: (fn) => cleanups.push(fn) }, database.url));
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

for (const c of cases) {
  test(`${c.name} → ${c.status} ${c.code}`, async () => {
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

test('nothing from the table was stored', async () => {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM links');
  assert.equal(rows[0]?.n, 0);
});
