import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deviceOf, familyName, primaryLanguage, referrerHost } from '../../src/core/dimensions.ts';

test('a referrer is its host alone: lowercase, without www., port, userinfo, path or query; direct when absent', () => {
  const cases: Record<string, string> = {
    'https://www.Google.com/search?q=private+words': 'google.com',
    'http://t.co/AbC': 't.co',
    'android-app://com.google.android.gm/': 'com.google.android.gm',
    'https://user:secret@mail.example.org:8443/inbox#x': 'mail.example.org',
    'https://example.com.': 'example.com',
    'https://news.ycombinator.com?id=1': 'news.ycombinator.com',
    'example.net/path': 'example.net',
    '': 'direct',
    'https:///nohost': 'unknown',
    'https://=cmd|calc/': 'unknown',
    'https://bücher.example/': 'unknown',
  };
  for (const [referer, host] of Object.entries(cases)) assert.equal(referrerHost(referer), host, referer);
  assert.equal(referrerHost(undefined), 'direct');
  assert.equal(referrerHost(`https://${'a'.repeat(300)}.example/`).length, 100);
});

test('the primary language is the best-rated range’s primary subtag', () => {
  const cases: Record<string, string> = {
    'en-US,en;q=0.9': 'en',
    'en-GB;q=0.8, fr': 'fr',
    'de-DE,de;q=0.9,en;q=0.5': 'de',
    'zh-Hant-TW': 'zh',
    '*': 'unknown',
    'x-klingon, en;q=0.1': 'en',
    'fr;q=0, es;q=0.2': 'es',
    FIL: 'fil',
    '': 'unknown',
    'en;q=abc': 'unknown',
  };
  for (const [header, language] of Object.entries(cases)) assert.equal(primaryLanguage(header), language, header);
  assert.equal(primaryLanguage(undefined), 'unknown');
  // A header of thousands of ranges is read no further than its first few.
  assert.equal(primaryLanguage(`${'x-a,'.repeat(5000)}en`), 'unknown');
});

test('a device type from bowser’s platform, a bot whatever it says; families named or unknown', () => {
  assert.equal(deviceOf('mobile', false), 'mobile');
  assert.equal(deviceOf('tablet', false), 'tablet');
  assert.equal(deviceOf('desktop', true), 'bot');
  assert.equal(deviceOf('bot', false), 'bot');
  assert.equal(deviceOf('tv', false), 'other');
  assert.equal(deviceOf(undefined, false), 'other');
  assert.equal(familyName(undefined), 'unknown');
  assert.equal(familyName('Chrome'), 'Chrome');
});
