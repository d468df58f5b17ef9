// Destination blocklists (src/core/blocklist/): reading each format operators get, and matching a
// link's target against named lists and an allowlist. Pure, no I/O but reading the fixtures.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { domainKeys, hostKeys, normaliseListDomain } from '../../src/core/blocklist/entries.ts';
import { csvFields } from '../../src/core/blocklist/formats.ts';
import { BlocklistMatcher } from '../../src/core/blocklist/match.ts';
import { BlocklistTooLargeError, detectFormat, parseBlocklist, type ListFormat, type ParsedList } from '../../src/core/blocklist/parse.ts';

function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/blocklists/${name}`, import.meta.url), 'utf8');
}

/** What a parse found, without the examples' texts (checked apart). */
function counts(list: ParsedList) {
  return { domains: list.domains.length, urls: list.urls.length, skipped: list.skipped, malformed: list.malformed.count };
}

const whyOf = (list: ParsedList) => list.malformed.examples.map(({ line, why }) => ({ line, why }));

describe('each format, from a fixture shaped like the real feed', () => {
  test('plain domains: comments, `*.`, upper case, trailing dot, IDN as punycode, a duplicate once', () => {
    const list = parseBlocklist(fixture('domains.txt'), 'domains');
    assert.deepEqual(list.domains, [
      'account-verify-center.com',
      'secure-login.account-verify-center.com',
      'parcel-redelivery-fee.net',
      'wallet-recovery-phrase.io',
      'cdn.malvertising-hub.org',
      'xn--bcher-gratis-download-8hc.de',
      'xn----8sbnldlkwjd3eyf.xn--p1ai',
      'update-your-bank.co.uk',
      'evil-pages.github.io',
    ]);
    assert.deepEqual(counts(list), { domains: 9, urls: 0, skipped: 4, malformed: 3 });
    assert.deepEqual(whyOf(list), [
      { line: 15, why: 'a public suffix: it would block every site under it' },
      { line: 16, why: 'a public suffix: it would block every site under it' },
      { line: 17, why: 'not a domain name' },
    ]);
    assert.equal(list.malformed.examples[2]?.text, 'download.example-files.com/setup.exe');
  });

  test('a hosts file: every name after the address, the machine’s own names skipped', () => {
    const list = parseBlocklist(fixture('hosts.txt'), 'hosts');
    assert.deepEqual(list.domains, [
      'ads.tracker-network.com',
      'pixel.tracker-network.com',
      'telemetry.adware-sdk.net',
      'popunder.cheap-ads.org',
      'popunder2.cheap-ads.org',
      'coin-miner.xyz',
      'track.adware-sdk.net',
    ]);
    // 26 comment or blank lines and 14 names of the machine (localhost, broadcasthost, ip6-*, 0.0.0.0, ...).
    assert.deepEqual(counts(list), { domains: 7, urls: 0, skipped: 40, malformed: 2 });
    assert.deepEqual(whyOf(list), [
      { line: 46, why: 'a public suffix: it would block every site under it' },
      { line: 47, why: 'not a hosts line: an address, then names' },
    ]);
  });

  test('Adblock-style: `||domain^` whatever its options; exceptions, cosmetic, path and wildcard rules skipped', () => {
    const list = parseBlocklist(fixture('adblock.txt'), 'adblock');
    assert.deepEqual(list.domains, [
      'malware-drop.com',
      'phish-kit.net',
      'cryptojack.io',
      'login.fake-bank.co.uk',
      '45.67.89.123',
      'bad-domain.org',
    ]);
    // The header, 7 `!` lines, $badfilter, @@, two `##` rules, a path, a wildcard, a regex, a `|` URL anchor.
    assert.deepEqual(counts(list), { domains: 6, urls: 0, skipped: 16, malformed: 1 });
    assert.deepEqual(whyOf(list), [{ line: 24, why: 'a public suffix: it would block every site under it' }]);
  });

  test('the URLhaus text feed (CRLF): URLs normalised as link targets, IP hosts and ports kept', () => {
    const list = parseBlocklist(fixture('urlhaus.txt'), 'urls');
    assert.deepEqual(list.urls, [
      'http://115.55.237.117:49524/Mozi.m',
      'http://42.224.65.17:35981/i',
      'http://182.117.28.41:55781/bin.sh',
      'http://103.155.93.126/arm7',
      'https://github.com/some-user/tools/raw/main/loader.exe',
      // `http://MALWARE-DROP.com:80/payload.exe` is this one again: lower case, default port dropped.
      'http://malware-drop.com/payload.exe',
      'https://files.malware-drop.com/invoice_2027.zip',
      'http://update-check.top/flash%20player.exe',
      'http://45.67.89.123:8080/x86_64',
    ]);
    assert.deepEqual(counts(list), { domains: 0, urls: 9, skipped: 8, malformed: 0 });
  });

  test('the OpenPhish feed: an IDN host and its punycode spelling are one URL', () => {
    const list = parseBlocklist(fixture('openphish.txt'), 'urls');
    assert.deepEqual(counts(list), { domains: 0, urls: 7, skipped: 0, malformed: 0 });
    assert.equal(list.urls.filter((url) => url === 'https://xn--pypal-4ve.com/login').length, 1);
    assert.ok(list.urls.includes('https://firebasestorage.googleapis.com/v0/b/phish-demo.appspot.com/o/index.html?alt=media'));
  });

  test('PhishTank’s CSV: the url column, quoted fields unquoted, a broken line alone counted', () => {
    const list = parseBlocklist(fixture('phishtank.csv'), 'phishtank-csv');
    assert.deepEqual(list.urls, [
      'https://secure-paypal-resolution.com/signin/',
      'https://account-verify-center.com/login?next=/home,settings',
      'https://bank-alerts.example-login.com/%22secure%22/',
      'http://203.0.113.54/owa/auth/logon.aspx',
      'https://wallet-connect-sync.net/',
    ]);
    assert.deepEqual(counts(list), { domains: 0, urls: 5, skipped: 1, malformed: 1 });
    assert.deepEqual(whyOf(list), [{ line: 6, why: 'not a CSV line: a quote out of place, or one that does not close' }]);
  });
});

describe('auto-detection', () => {
  const fixtures: [string, ListFormat][] = [
    ['domains.txt', 'domains'],
    ['hosts.txt', 'hosts'],
    ['adblock.txt', 'adblock'],
    ['urlhaus.txt', 'urls'],
    ['openphish.txt', 'urls'],
    ['phishtank.csv', 'phishtank-csv'],
  ];
  for (const [name, format] of fixtures) {
    test(`${name} reads as ${format}, and as when the format is named`, () => {
      const text = fixture(name);
      assert.equal(detectFormat(text), format);
      assert.deepEqual(parseBlocklist(text, 'auto'), parseBlocklist(text, format));
    });
  }

  test('an Adblock list without its header, a hosts file without comments, a list of only comments', () => {
    assert.equal(detectFormat('||a-bad.example^\n||b-bad.example^$third-party\n'), 'adblock');
    assert.equal(detectFormat('0.0.0.0 a-bad.example\n0.0.0.0 b-bad.example\n'), 'hosts');
    assert.equal(detectFormat('\ufeff# nothing yet\n\n'), 'domains');
  });
});

describe('domains', () => {
  test('case, IDN, trailing dot and `*.` come out as a URL’s host writes them', () => {
    const list = parseBlocklist('EVIL.Example.COM\n*.wild.example.com\nbücher.example.com.\nxn--bcher-kva.example.com\n', 'domains');
    assert.deepEqual(list.domains, ['evil.example.com', 'wild.example.com', 'xn--bcher-kva.example.com']);
    for (const domain of list.domains) assert.equal(new URL(`https://${domain}/`).hostname, domain);
  });

  test('a public suffix is refused, from the ICANN section and the private one', () => {
    for (const suffix of ['com', 'co.uk', 'github.io', 'blogspot.com', 'COM.', 'localhost']) {
      assert.deepEqual(normaliseListDomain(suffix), { malformed: 'a public suffix: it would block every site under it' }, suffix);
    }
    assert.deepEqual(normaliseListDomain('someone.github.io'), { entry: 'someone.github.io' });
  });

  test('what is no domain name is malformed, not cut to one', () => {
    for (const text of [
      'evil.example/path',
      'user@evil.example',
      'evil.example:8080',
      'ads*.example.com',
      'a..b.example',
      '123',
      'evil.123',
      '',
    ]) {
      assert.ok('malformed' in normaliseListDomain(text), text);
    }
  });

  test('an IP address is an entry of its own, as a URL writes it', () => {
    assert.deepEqual(normaliseListDomain('45.67.89.123'), { entry: '45.67.89.123' });
    assert.deepEqual(normaliseListDomain('2001:DB8:0:0::17'), { entry: '[2001:db8::17]' });
  });

  test('a line over 2,048 characters is malformed, its example cut short', () => {
    const long = `${'a'.repeat(2040)}.example.com`;
    const list = parseBlocklist(`ok.example.com\n${long}\n`, 'domains');
    assert.deepEqual(counts(list), { domains: 1, urls: 0, skipped: 0, malformed: 1 });
    assert.equal(list.malformed.examples[0]?.why, 'longer than 2048 characters');
    assert.equal(list.malformed.examples[0]?.text.length, 201);
  });

  test('malformed lines are all counted, the first five kept as examples', () => {
    const text = Array.from({ length: 12 }, (_, i) => `bad/${i}`).join('\n');
    const list = parseBlocklist(text, 'domains');
    assert.equal(list.malformed.count, 12);
    assert.deepEqual(
      list.malformed.examples.map((example) => example.line),
      [1, 2, 3, 4, 5],
    );
  });
});

describe('URLs and CSV', () => {
  test('a URL no link can have is skipped; one that is no URL is malformed', () => {
    const list = parseBlocklist('ftp://files.example.com/x\nhttp://user:pw@evil.example.com/\nevil.example.com/login\n', 'urls');
    assert.deepEqual(counts(list), { domains: 0, urls: 0, skipped: 2, malformed: 1 });
    assert.equal(list.malformed.examples[0]?.why, 'not an absolute http(s) URL');
  });

  test('CSV fields as RFC 4180 has them, and nothing for a broken quote', () => {
    assert.deepEqual(csvFields('1,"a,b","say ""hi""",'), ['1', 'a,b', 'say "hi"', '']);
    assert.equal(csvFields('1,"open,2'), undefined);
    assert.equal(csvFields('1,a"b,2'), undefined);
    assert.equal(csvFields('1,"a"b,2'), undefined);
  });

  test('a CSV without a url column reads nothing and says why', () => {
    const list = parseBlocklist('id,link\n1,https://evil.example.com/\n', 'phishtank-csv');
    assert.deepEqual(counts(list), { domains: 0, urls: 0, skipped: 0, malformed: 2 });
    assert.equal(list.malformed.examples[0]?.why, 'no url column in the header (phish_id,url,...)');
  });
});

describe('size', () => {
  test('a list of 200,000 domains parses whole', () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `host-${i}.bad-${i % 997}.example.com`);
    const list = parseBlocklist(`# generated\n${lines.join('\n')}\n`, 'domains');
    assert.deepEqual(counts(list), { domains: 200_000, urls: 0, skipped: 1, malformed: 0 });
    assert.equal(list.domains[199_999], 'host-199999.bad-599.example.com');
  });

  test('past the most entries a list may have, it is refused whole; duplicates do not count', () => {
    const text = ['a.example.com', 'b.example.com', 'a.example.com', 'c.example.com'].join('\n');
    assert.equal(parseBlocklist(text, 'domains', 3).domains.length, 3);
    assert.throws(
      () => parseBlocklist(`${text}\nd.example.com`, 'domains', 3),
      (error) => error instanceof BlocklistTooLargeError && error.limit === 3,
    );
  });
});

describe('the matcher', () => {
  const urlhaus = { name: 'urlhaus', domains: [], urls: ['http://malware-drop.com/payload.exe', 'http://45.67.89.123:8080/x86_64'] };
  const phishing = { name: 'phishing', domains: ['evil.example.com', 'kit.co.uk', '45.67.89.123'], urls: [] };
  const matcher = new BlocklistMatcher([urlhaus, phishing]);

  test('a domain entry blocks itself and its subdomains', () => {
    assert.deepEqual(matcher.match('https://evil.example.com/'), { list: 'phishing', entry: 'evil.example.com', kind: 'domain' });
    assert.deepEqual(matcher.match('https://a.b.evil.example.com/login'), { list: 'phishing', entry: 'evil.example.com', kind: 'domain' });
    assert.deepEqual(matcher.match('https://www.kit.co.uk/'), { list: 'phishing', entry: 'kit.co.uk', kind: 'domain' });
  });

  test('but not its parent, a sibling, or a name that merely ends the same', () => {
    for (const url of [
      'https://example.com/',
      'https://good.example.com/',
      'https://notevil.example.com/',
      'https://evil.example.com.au/',
    ]) {
      assert.equal(matcher.match(url), null, url);
    }
  });

  test('the walk stops at the registrable domain: an entry above it never matches', () => {
    const above = new BlocklistMatcher([{ name: 'suffixes', domains: ['co.uk', 'github.io', 'com'], urls: [] }]);
    for (const url of ['https://shop.kit.co.uk/', 'https://someone.github.io/', 'https://example.com/']) {
      assert.equal(above.match(url), null, url);
    }
    assert.deepEqual(hostKeys('https://a.b.kit.co.uk/x'), ['a.b.kit.co.uk', 'b.kit.co.uk', 'kit.co.uk']);
    assert.deepEqual(hostKeys('https://www.someone.github.io/'), ['www.someone.github.io', 'someone.github.io']);
    assert.deepEqual(domainKeys('evil.example.com.'), ['evil.example.com', 'example.com']);
  });

  test('a URL entry matches that URL once normalised, and no other path', () => {
    const hit = { list: 'urlhaus', entry: 'http://malware-drop.com/payload.exe', kind: 'url' };
    assert.deepEqual(matcher.match('http://malware-drop.com/payload.exe'), hit);
    assert.deepEqual(matcher.match('HTTP://Malware-Drop.COM:80/payload.exe'), hit);
    for (const url of [
      'http://malware-drop.com/payload.exe?x=1',
      'http://malware-drop.com/other.exe',
      'https://malware-drop.com/payload.exe',
    ]) {
      assert.equal(matcher.match(url), null, url);
    }
  });

  test('an IP address matches only itself', () => {
    assert.deepEqual(matcher.match('http://45.67.89.123/anything'), { list: 'phishing', entry: '45.67.89.123', kind: 'domain' });
    assert.deepEqual(hostKeys('http://45.67.89.123:8080/x'), ['45.67.89.123']);
    assert.deepEqual(hostKeys('http://[2001:db8::17]/x'), ['[2001:db8::17]']);
    assert.equal(matcher.match('http://45.67.89.12/'), null);
    assert.equal(matcher.match('http://145.67.89.123/'), null);
  });

  test('an exact URL is matched before a domain, and the list named is the first that holds the entry', () => {
    assert.deepEqual(matcher.match('http://45.67.89.123:8080/x86_64'), {
      list: 'urlhaus',
      entry: 'http://45.67.89.123:8080/x86_64',
      kind: 'url',
    });
    const twice = new BlocklistMatcher([
      { name: 'first', domains: new Set(['evil.example.com']), urls: [] },
      { name: 'second', domains: ['a.evil.example.com'], urls: [] },
    ]);
    assert.equal(twice.match('https://a.evil.example.com/')?.list, 'first');
  });

  test('the allowlist wins: an allowed domain, its subdomains and an allowed URL are never matched', () => {
    const allowing = new BlocklistMatcher([urlhaus, phishing], {
      domains: ['safe.evil.example.com'],
      urls: ['http://malware-drop.com/payload.exe'],
    });
    assert.equal(allowing.match('https://safe.evil.example.com/'), null);
    assert.equal(allowing.match('https://www.safe.evil.example.com/'), null);
    assert.equal(allowing.match('http://malware-drop.com/payload.exe'), null);
    assert.equal(allowing.match('https://evil.example.com/')?.entry, 'evil.example.com');
  });

  test('what is not a URL matches nothing', () => {
    assert.equal(matcher.match('not a url'), null);
    assert.deepEqual(hostKeys('not a url'), []);
  });
});
