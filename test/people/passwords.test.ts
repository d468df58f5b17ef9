// People's passwords (src/people/passwords.ts): NIST 800-63B's rules for a new one, the shipped list of
// common passwords, and Argon2id hashes that verify only the password they were made from.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOptions } from '@node-rs/argon2';
import { commonPasswords, isCommonPassword } from '../../src/people/common-passwords.ts';
import { hashPassword, passwordLength, passwordProblem, verifyPassword } from '../../src/people/passwords.ts';

const codeOf = (password: string, context: { email?: string; name?: string } = {}) => passwordProblem(password, context)?.code;

test('a new password has 8 to 256 characters, counted as code points after NFC', () => {
  assert.equal(codeOf('seven77'), 'PASSWORD_TOO_SHORT');
  assert.equal(codeOf(''), 'PASSWORD_TOO_SHORT');
  assert.equal(codeOf('eight8!x'), undefined);
  // Four emoji are 8 UTF-16 units but 4 characters.
  assert.equal(codeOf('🦊🐙🦉🐝'), 'PASSWORD_TOO_SHORT');
  assert.equal(codeOf('🦊🐙🦉🐝🦊🐙🦉🐝'), undefined);
  // e + combining acute is one character once composed: 7 of them, not 14.
  assert.equal(codeOf('e\u0301'.repeat(3) + 'qwzx'), 'PASSWORD_TOO_SHORT');
  assert.equal(codeOf('é'.repeat(3) + 'qwzxv'), undefined);
  assert.equal(codeOf('ab'.repeat(128)), undefined);
  assert.equal(codeOf('ab'.repeat(128) + 'c'), 'PASSWORD_TOO_LONG');
  assert.equal(codeOf('🦊'.repeat(128) + '🐙'.repeat(128)), undefined, '256 characters of two units each');
});

test('no composition rules: lowercase words, digits alone and spaces are all fine when not common', () => {
  for (const password of ['correct horse battery staple', 'mauvaisecoquille', '40917253886', '        x       '])
    assert.equal(codeOf(password), undefined, password);
});

test('a common password is refused whatever its case; so are the email, its local part, the name and one character repeated', () => {
  for (const password of ['password', 'PASSWORD1', 'Password1', '12345678', 'qwertyuiop', 'iloveyou'])
    assert.equal(codeOf(password), 'PASSWORD_TOO_COMMON', password);
  const person = { email: 'Ada.Lovelace@Example.com', name: 'Ada Lovelace' };
  assert.equal(codeOf('ada.lovelace@example.com', person), 'PASSWORD_TOO_COMMON');
  assert.equal(codeOf('ADA.LOVELACE', person), 'PASSWORD_TOO_COMMON');
  assert.equal(codeOf('ada lovelace', person), 'PASSWORD_TOO_COMMON');
  assert.equal(codeOf('ada lovelace', {}), undefined);
  assert.equal(codeOf('ada lovelace 1815', person), undefined);
  assert.equal(codeOf('zzzzzzzzz'), 'PASSWORD_TOO_COMMON');
  assert.equal(codeOf('🦊'.repeat(8)), 'PASSWORD_TOO_COMMON');
  assert.equal(codeOf('zzzzzzzzy'), undefined);
  const problem = passwordProblem('password', {});
  assert.equal(typeof problem?.message, 'string');
});

test('the shipped list is loaded once, lower-cased, and holds thousands of common passwords of 8 or more characters', () => {
  const list = commonPasswords();
  assert.ok(list.size > 1000, `${list.size} entries`);
  assert.equal(commonPasswords(), list);
  for (const entry of ['password1', '12345678', 'password', 'baseball']) assert.ok(isCommonPassword(entry), entry);
  assert.equal(isCommonPassword('Password1'), false, 'the caller lower-cases');
  assert.equal(
    [...list].some((entry) => entry.startsWith('#') || passwordLength(entry) < 8 || entry !== entry.toLowerCase()),
    false,
  );
});

test('a hash is an Argon2id PHC string with OWASP parameters and its own salt, verifying only its password', async () => {
  const stored = await hashPassword('correct horse battery staple');
  assert.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.deepEqual((({ memoryCost, timeCost, parallelism }) => ({ memoryCost, timeCost, parallelism }))(parseOptions(stored)), {
    memoryCost: 19_456,
    timeCost: 2,
    parallelism: 1,
  });
  assert.notEqual(await hashPassword('correct horse battery staple'), stored, 'a new salt each time');
  assert.equal(await verifyPassword(stored, 'correct horse battery staple'), true);
  assert.equal(await verifyPassword(stored, 'correct horse battery stapl'), false);
  assert.equal(await verifyPassword(stored, 'Correct horse battery staple'), false);
});

test('a password typed composed or decomposed is the same password', async () => {
  const stored = await hashPassword('café au lait');
  assert.equal(await verifyPassword(stored, 'cafe\u0301 au lait'), true);
});

test('no stored hash, or one that is not a PHC string, is false and never a throw; no hash takes as long as one', async () => {
  const stored = await hashPassword('correct horse battery staple');
  for (const bad of ['', 'x', 'scrypt$16384$8$1$c2FsdA$a2V5', '$argon2id$v=19$m=19456,t=2,p=1$abc$def', stored.slice(0, -4)])
    assert.equal(await verifyPassword(bad, 'correct horse battery staple'), false, JSON.stringify(bad));
  const timed = async (value: string | null) => {
    const started = performance.now();
    assert.equal(await verifyPassword(value, 'correct horse battery staple!'), false);
    return performance.now() - started;
  };
  const withAccount = await timed(stored);
  const without = await timed(null);
  // The dummy hash has the same parameters: the same work, within the noise of a shared machine.
  assert.ok(without > withAccount / 3, `without an account ${without.toFixed(1)} ms, with one ${withAccount.toFixed(1)} ms`);
});
