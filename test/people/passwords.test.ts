// People's passwords (src/people/passwords.ts): NIST 800-63B's rules for a new one, the shipped list of
// common passwords, and Argon2id hashes that verify only the password they were made from.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOptions, verify } from '@node-rs/argon2';
import { commonPasswords, isCommonPassword } from '../../src/people/common-passwords.ts';
import { DUMMY_HASH, hashPassword, passwordLength, passwordProblem, verifyPassword } from '../../src/people/passwords.ts';

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

test('no stored hash, or one that is not a PHC string, is false and never a throw; no hash is checked against a real hash all the same', async () => {
  const stored = await hashPassword('correct horse battery staple');
  for (const bad of ['', 'x', 'scrypt$16384$8$1$c2FsdA$a2V5', '$argon2id$v=19$m=19456,t=2,p=1$abc$def', stored.slice(0, -4)])
    assert.equal(await verifyPassword(bad, 'correct horse battery staple'), false, JSON.stringify(bad));
  // The same work with and without an account is a matter of what is hashed, not of a stopwatch: the
  // check runs on the dummy, whose parameters are those of every new hash and which Argon2 accepts.
  const checked: string[] = [];
  const recording = (hashed: string, password: string) => {
    checked.push(hashed);
    return verify(hashed, password);
  };
  assert.equal(await verifyPassword(null, 'correct horse battery staple', recording), false);
  assert.equal(await verifyPassword(stored, 'correct horse battery staple', recording), true);
  assert.deepEqual(checked, [DUMMY_HASH, stored]);
  const paramsOf = (hashed: string) =>
    (({ memoryCost, timeCost, parallelism }) => ({ memoryCost, timeCost, parallelism }))(parseOptions(hashed));
  assert.deepEqual(paramsOf(DUMMY_HASH), paramsOf(stored));
  assert.equal(
    await verify(DUMMY_HASH, 'correct horse battery staple'),
    false,
    'the dummy is a hash Argon2 verifies, not one it throws on',
  );
  // Even the dummy's own password (whatever it was) never signs in without an account.
  assert.equal(await verifyPassword(null, 'anything', async () => true), false);
});
