import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseDomain, targetPolicyOf, type TargetPolicy } from '../../src/core/target-policy.ts';
import { checkTargetUrl } from '../../src/core/url-rules.ts';

const policy = (changes: Partial<TargetPolicy> = {}): TargetPolicy => ({
  ...targetPolicyOf({ baseUrl: 'https://sho.rt', allowPrivateTargets: false, allowShortenerTargets: false, blockedDomains: new Set() }),
  ...changes,
});
const verdict = (url: string, p = policy()) => {
  const result = checkTargetUrl(url, p);
  return result.ok ? 'ok' : result.code;
};

describe('private targets are refused in every notation', () => {
  const privateTargets = [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/',
    'http://①②⑦.0.0.1/',
    'http://127.0.0.1.:8080/',
    'http://0.0.0.0/',
    'http://0/',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://192.168.1.1/admin',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:192.168.0.1]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[::a9fe:a9fe]/',
    'http://[::10.0.0.1]/',
    'http://localhost/',
    'http://LOCALHOST:3000/',
    'http://localhost./',
    'http://ｌｏｃａｌｈｏｓｔ/',
    'http://app.localhost/',
    'http://printer.local/',
    'http://db.internal/',
    'http://router.home.arpa/',
    'http://intranet/',
  ];
  for (const url of privateTargets) {
    test(`${url} → URL_PRIVATE_ADDRESS`, () => {
      assert.equal(verdict(url), 'URL_PRIVATE_ADDRESS');
    });
  }

  test('a host with an empty label is no host, however it would compare', () => {
    for (const url of ['http://127.0.0.1../', 'http://localhost../', 'https://bit.ly../', 'https://sho.rt../', 'https://evil..example/']) {
      assert.equal(verdict(url, policy({ blockedDomains: new Set(['evil.example']) })), 'URL_INVALID', url);
    }
  });

  test('public addresses and names pass', () => {
    for (const url of [
      'http://8.8.8.8/',
      'http://[::8.8.8.8]/',
      'http://[2606:4700:4700::1111]/',
      'https://example.com/',
      'https://localhost.example.com/',
      'https://local.example/',
    ]) {
      assert.equal(verdict(url), 'ok', url);
    }
  });

  test('ALLOW_PRIVATE_TARGETS lets them through', () => {
    for (const url of ['http://127.0.0.1/', 'http://[::1]/', 'http://localhost/', 'http://intranet/']) {
      assert.equal(verdict(url, policy({ allowPrivate: true })), 'ok', url);
    }
  });
});

describe('this service, blocked domains and other shorteners', () => {
  test("this service's own host in any case, with a trailing dot or a port", () => {
    for (const url of ['https://sho.rt/abc', 'https://SHO.RT/abc', 'https://sho.rt./abc', 'http://sho.rt:8080/', 'https://sh%6F.rt/x']) {
      assert.equal(verdict(url), 'URL_SELF_REFERENCE', url);
    }
  });

  test('a blocked domain and its subdomains, however written', () => {
    const blocked = policy({ blockedDomains: new Set(['evil.example', 'xn--e1afmkfd.xn--p1ai']) });
    for (const url of [
      'https://evil.example/',
      'https://EVIL.example./x',
      'https://a.b.evil.example/',
      'https://пример.рф/',
      'https://www.xn--e1afmkfd.xn--p1ai/',
    ]) {
      assert.equal(verdict(url, blocked), 'URL_DOMAIN_BLOCKED', url);
    }
    // Only the domain and what lies under it: a name that merely ends or starts like it passes.
    for (const url of ['https://notevil.example/', 'https://evil.example.com/']) assert.equal(verdict(url, blocked), 'ok', url);
    // Nor is a parent of a blocked domain (a single label is private; allowed here, to reach the blocklist).
    assert.equal(verdict('https://example/', blocked), 'URL_PRIVATE_ADDRESS');
    assert.equal(verdict('https://example/', { ...blocked, allowPrivate: true }), 'ok');
  });

  test('other URL shorteners, with their subdomains, unless allowed', () => {
    for (const url of ['https://bit.ly/3abc', 'https://BIT.LY/x', 'https://www.tinyurl.com/y', 'https://t.co/z', 'https://is.gd./q']) {
      assert.equal(verdict(url), 'URL_SHORTENER_NOT_ALLOWED', url);
      assert.equal(verdict(url, policy({ allowShorteners: true })), 'ok', url);
    }
    assert.equal(verdict('https://notbit.ly/'), 'ok');
  });

  test('blocklist entries are normalised as hosts are', () => {
    assert.equal(normaliseDomain(' Evil.Example. '), 'evil.example');
    assert.equal(normaliseDomain('*.evil.example'), 'evil.example');
    assert.equal(normaliseDomain('пример.рф'), 'xn--e1afmkfd.xn--p1ai');
    for (const bad of ['', 'https://evil.example/', 'evil example', 'a/b', 'user@host', 'evil.example..', '.evil.example']) {
      assert.equal(normaliseDomain(bad), undefined, bad);
    }
  });
});
