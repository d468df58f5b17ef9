// Host names of short domains and link keys (src/core/domains.ts): pure, no I/O.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ShortCode } from '../../src/core/codes.ts';
import { checkDomainHost, keyOf, linkKey, requestHostName, splitKey, type LinkKey } from '../../src/core/domains.ts';

test('a domain host is stored lowercase, IDN as punycode, without its trailing dot', () => {
  const cases: [string, string][] = [
    ['go.example.com', 'go.example.com'],
    ['  GO.Example.COM.  ', 'go.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['a-b.c-d.example', 'a-b.c-d.example'],
  ];
  for (const [input, host] of cases) {
    assert.deepEqual(checkDomainHost(input), { ok: true, host }, input);
  }
});

test('a domain host is refused with a message: empty, a scheme, a port, a path, an IP address, one label, a bad label, too long', () => {
  for (const input of [
    '',
    '   ',
    'https://go.example.com',
    'go.example.com:443',
    'go.example.com/x',
    'user@go.example.com',
    'go example.com',
    '10.0.0.1',
    '[::1]',
    '1.2.3',
    'localhost',
    '-go.example.com',
    'go-.example.com',
    'go..example.com',
    'go_x.example.com',
    `${'a'.repeat(64)}.example.com`,
    `${'abcdefghi.'.repeat(26)}com`,
  ]) {
    const verdict = checkDomainHost(input);
    assert.equal(verdict.ok, false, input);
    assert.ok(!verdict.ok && verdict.message.length > 10, input);
  }
});

test("a request's Host is looked up lowercase, without its port and trailing dot", () => {
  assert.equal(requestHostName('GO.Example.com:8443'), 'go.example.com');
  assert.equal(requestHostName('go.example.com.'), 'go.example.com');
  assert.equal(requestHostName('go.example.com.:80'), 'go.example.com');
  assert.equal(requestHostName('[::1]:3000'), '[::1]');
  assert.equal(requestHostName('127.0.0.1:3000'), '127.0.0.1');
  assert.equal(requestHostName(''), '');
});

test("a link's key is its code on the default domain, <id>:<code> on another, and splits back", () => {
  const code = 'spring' as ShortCode;
  assert.equal(linkKey(0, code), 'spring');
  assert.equal(linkKey(12, code), '12:spring');
  assert.equal(keyOf({ domainId: 12, code }), '12:spring');
  assert.deepEqual(splitKey('spring' as LinkKey), { domainId: 0, code: 'spring' });
  assert.deepEqual(splitKey('12:spring' as LinkKey), { domainId: 12, code: 'spring' });
});
