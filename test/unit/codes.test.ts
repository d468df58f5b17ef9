import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeBase62, encodeBase62 } from '../../src/core/base62.ts';
import { aliasProblem, asShortCode, createCodeCodec } from '../../src/core/codes.ts';
import { createPermutation } from '../../src/core/permutation.ts';

describe('base62', () => {
  test('encodes to a fixed width and decodes back', () => {
    for (const [value, text] of [
      [0, '0000000'],
      [61, '000000z'],
      [62, '0000010'],
      [62 ** 7 - 1, 'zzzzzzz'],
    ] as const) {
      assert.equal(encodeBase62(value, 7), text);
      assert.equal(decodeBase62(text), value);
    }
  });
  test('refuses values that do not fit and characters outside the alphabet', () => {
    assert.throws(() => encodeBase62(62 ** 5, 5), RangeError);
    assert.throws(() => encodeBase62(-1, 5), RangeError);
    assert.equal(decodeBase62('abc-d'), -1);
    assert.equal(decodeBase62('abcé'), -1);
  });
});

describe('the keyed permutation of ids', () => {
  for (const length of [5, 6, 7, 8]) {
    test(`maps into [0, 62^${length}) and back: no collision over the first 20,000 ids and the top id`, () => {
      const p = createPermutation('a-secret-of-sixteen+', length);
      const seen = new Set<number>();
      for (let id = 0; id < 20_000; id++) {
        const code = p.forward(id);
        assert.ok(code >= 0 && code < 62 ** length);
        assert.equal(p.inverse(code), id);
        assert.ok(!seen.has(code), `collision at id ${id}`);
        seen.add(code);
      }
      const high = 62 ** length - 1;
      assert.equal(p.inverse(p.forward(high)), high);
    });
  }

  test('consecutive ids give codes that share no obvious order', () => {
    const codec = createCodeCodec(createPermutation('a-secret-of-sixteen+', 7), 7);
    const codes = Array.from({ length: 1000 }, (_, id) => codec.fromId(id));
    let ascending = 0;
    for (let i = 1; i < codes.length; i++) if ((codes[i] as string) > (codes[i - 1] as string)) ascending++;
    // A counter would be ascending 999 times; a permutation about half of the time.
    assert.ok(ascending > 400 && ascending < 600, `ascending ${ascending} of 999`);
    const prefixes = new Set(codes.map((c) => c.slice(0, 2)));
    assert.ok(prefixes.size > 500, `only ${prefixes.size} distinct 2-character prefixes`);
  });

  test('depends on the secret', () => {
    const a = createCodeCodec(createPermutation('a-secret-of-sixteen+', 7), 7);
    const b = createCodeCodec(createPermutation('another-secret-16chars', 7), 7);
    const same = Array.from({ length: 100 }, (_, id) => a.fromId(id) === b.fromId(id)).filter(Boolean).length;
    assert.ok(same < 3);
  });

  test('a generated code maps back to its id; other strings do not', () => {
    const codec = createCodeCodec(createPermutation('a-secret-of-sixteen+', 7), 7);
    assert.equal(codec.toId(codec.fromId(123_456)), 123_456);
    assert.equal(codec.toId('short'), -1);
    assert.equal(codec.toId('abc_def'), -1);
  });
});

describe('code shapes', () => {
  test('accepts generated codes and aliases, refuses everything else before any I/O', () => {
    for (const ok of ['abc', 'Ab3_-x9', 'a'.repeat(64), 'XArj78D']) assert.equal(asShortCode(ok), ok);
    for (const bad of ['ab', 'a'.repeat(65), 'a/b', 'a.b', 'a%2Fb', 'ab c', 'ａbc', 'abc\u0000', '', 'links', 'HEALTHZ', 'metrics']) {
      assert.equal(asShortCode(bad), undefined, JSON.stringify(bad));
    }
  });
  test('names what is wrong with an alias', () => {
    assert.equal(aliasProblem('my-link'), undefined);
    assert.equal(aliasProblem('no'), 'ALIAS_INVALID');
    assert.equal(aliasProblem('über'), 'ALIAS_INVALID');
    assert.equal(aliasProblem('Docs'), 'ALIAS_RESERVED');
  });
});
