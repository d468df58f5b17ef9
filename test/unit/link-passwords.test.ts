// Passwords of protected links and their passes (src/core/link-passwords.ts): scrypt, and an HMAC
// under a key derived for passes alone, over the link, the expiry and the password's tag.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deriveKey } from '../../src/core/keys.ts';
import {
  hashPassword,
  hasPass,
  PASS_COOKIE,
  PASS_ENTRIES_MAX,
  PASS_SECONDS,
  passTagOf,
  passValue,
  verifyPassword,
} from '../../src/core/link-passwords.ts';

const KEY = deriveKey('a-secret-of-the-deployment', 'link-passes');
const NOW = Date.parse('2026-12-04T12:00:00Z');

test('a password is kept as a salted scrypt hash and only the same password matches it', async () => {
  const one = await hashPassword('open sesame');
  const two = await hashPassword('open sesame');
  assert.match(one, /^scrypt\$16384\$8\$1\$/);
  assert.notEqual(one, two, 'a salt of its own');
  assert.equal(await verifyPassword('open sesame', one), true);
  assert.equal(await verifyPassword('open sesame', two), true);
  assert.equal(await verifyPassword('open sesamE', one), false);
  assert.equal(await verifyPassword('', one), false);
  assert.equal(await verifyPassword('open sesame', 'md5$abc'), false);
  // Unicode is compared in one normal form: é typed precomposed or decomposed is one password.
  assert.equal(await verifyPassword('caf\u0065\u0301', await hashPassword('caf\u00e9')), true);
});

test('the key of passes is derived for its purpose: another purpose or secret gives another key', () => {
  assert.equal(KEY.length, 32);
  assert.deepEqual(deriveKey('a-secret-of-the-deployment', 'link-passes'), KEY);
  assert.notDeepEqual(deriveKey('a-secret-of-the-deployment', 'other'), KEY);
  assert.notDeepEqual(deriveKey('another-secret', 'link-passes'), KEY);
  assert.notEqual(KEY.toString('utf8'), 'a-secret-of-the-deployment');
});

test("a password's tag tells hashes apart and holds neither the hash nor its salt", async () => {
  const stored = await hashPassword('pw-one-long');
  const tag = passTagOf(stored);
  assert.match(tag, /^[\w-]{22}$/);
  assert.equal(passTagOf(stored), tag);
  assert.notEqual(passTagOf(await hashPassword('pw-one-long')), tag, 'the same password anew: another tag');
  for (const part of stored.split('$').slice(4)) assert.equal(tag.includes(part), false);
});

test('a pass is good for its link and password, until it expires, wherever it stands in the Cookie header', async () => {
  const tag = passTagOf(await hashPassword('pw-one-long'));
  const value = passValue(KEY, 'abc', tag, NOW);
  const cookie = `${PASS_COOKIE}=${value}`;
  assert.equal(hasPass(cookie, KEY, 'abc', tag, NOW), true);
  assert.equal(hasPass(`a=1; ${cookie}; b=2`, KEY, 'abc', tag, NOW + 1000), true);
  assert.equal(hasPass(`a=1;${cookie}`, KEY, 'abc', tag, NOW), true);
  assert.equal(hasPass(cookie, KEY, 'abc', tag, NOW + PASS_SECONDS * 1000), false, 'expired');
  assert.equal(hasPass(cookie, KEY, 'abd', tag, NOW), false, 'another link');
  assert.equal(hasPass(cookie, KEY, '2:abc', tag, NOW), false, 'the same code on another domain');
  assert.equal(hasPass(cookie, deriveKey('another-secret', 'link-passes'), 'abc', tag, NOW), false, 'another deployment');
  assert.equal(hasPass(cookie, KEY, 'abc', passTagOf(await hashPassword('pw-one-long')), NOW), false, 'a new password, even the same one');
  assert.equal(hasPass(`x${cookie}`, KEY, 'abc', tag, NOW), false, 'a cookie whose name only ends so');
  const [expiry, mac] = value.split('.') as [string, string];
  assert.equal(hasPass(`${PASS_COOKIE}=${Number(expiry) + 3600}.${mac}`, KEY, 'abc', tag, NOW), false, 'a longer expiry, forged');
  for (const bad of [undefined, '', `${PASS_COOKIE}=`, `${PASS_COOKIE}=x.y`, `${PASS_COOKIE}=${expiry}.`, `${PASS_COOKIE}=${value}x`])
    assert.equal(hasPass(bad, KEY, 'abc', tag, NOW), false, String(bad));
});

test('a Cookie header stuffed with link-pass entries is read no further than PASS_ENTRIES_MAX of them', async () => {
  const tag = passTagOf(await hashPassword('pw-one-long'));
  const good = `${PASS_COOKIE}=${passValue(KEY, 'abc', tag, NOW)}`;
  const junk = (n: number) =>
    Array.from({ length: n }, (_, i) => `${PASS_COOKIE}=${NOW / 1000 + 60}.${'A'.repeat(42)}${i % 10}`).join('; ');
  assert.equal(hasPass(`${junk(PASS_ENTRIES_MAX - 1)}; ${good}`, KEY, 'abc', tag, NOW), true, 'within the bound');
  assert.equal(hasPass(`${junk(PASS_ENTRIES_MAX)}; ${good}`, KEY, 'abc', tag, NOW), false, 'past it: ignored');
  const stuffed = `${junk(1000)}; ${good}`;
  const started = performance.now();
  for (let i = 0; i < 100; i++) hasPass(stuffed, KEY, 'abc', tag, NOW);
  assert.ok(performance.now() - started < 500, 'no HMAC per entry');
});
