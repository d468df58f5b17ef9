// Passwords of protected links and their passes (src/core/link-passwords.ts): scrypt, and an HMAC
// over the link, the expiry and the hash's salt.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, hasPass, PASS_COOKIE, PASS_SECONDS, passValue, verifyPassword } from '../../src/core/link-passwords.ts';

const SECRET = 'a-secret-of-the-deployment';
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

test('a pass is good for its link and password, until it expires, wherever it stands in the Cookie header', async () => {
  const stored = await hashPassword('pw-one');
  const value = passValue(SECRET, 'abc', stored, NOW);
  const cookie = `${PASS_COOKIE}=${value}`;
  assert.equal(hasPass(cookie, SECRET, 'abc', stored, NOW), true);
  assert.equal(hasPass(`a=1; ${cookie}; b=2`, SECRET, 'abc', stored, NOW + 1000), true);
  assert.equal(hasPass(`a=1;${cookie}`, SECRET, 'abc', stored, NOW), true);
  assert.equal(hasPass(cookie, SECRET, 'abc', stored, NOW + PASS_SECONDS * 1000), false, 'expired');
  assert.equal(hasPass(cookie, SECRET, 'abd', stored, NOW), false, 'another link');
  assert.equal(hasPass(cookie, SECRET, '2:abc', stored, NOW), false, 'the same code on another domain');
  assert.equal(hasPass(cookie, 'another-secret', 'abc', stored, NOW), false, 'another deployment');
  assert.equal(hasPass(cookie, SECRET, 'abc', await hashPassword('pw-one'), NOW), false, 'a new password, even the same one');
  assert.equal(hasPass(`x${cookie}`, SECRET, 'abc', stored, NOW), false, 'a cookie whose name only ends so');
  const [expiry, mac] = value.split('.') as [string, string];
  assert.equal(hasPass(`${PASS_COOKIE}=${Number(expiry) + 3600}.${mac}`, SECRET, 'abc', stored, NOW), false, 'a longer expiry, forged');
  for (const bad of [undefined, '', `${PASS_COOKIE}=`, `${PASS_COOKIE}=x.y`, `${PASS_COOKIE}=${expiry}.`])
    assert.equal(hasPass(bad, SECRET, 'abc', stored, NOW), false, String(bad));
});
