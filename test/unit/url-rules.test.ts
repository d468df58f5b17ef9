import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDateTime } from '../../src/core/field-values.ts';
import { checkLinkRequest } from '../../src/core/link.ts';
import { targetPolicyOf } from '../../src/core/target-policy.ts';
import { checkTargetUrl } from '../../src/core/url-rules.ts';

const SELF = targetPolicyOf({
  baseUrl: 'https://sho.rt',
  allowPrivateTargets: false,
  allowShortenerTargets: false,
  blockedDomains: new Set(),
});

describe('target URL rules', () => {
  const accepted: [string, string][] = [
    ['https://example.com', 'https://example.com/'],
    ['HTTPS://EXAMPLE.COM/Path?Q=1#Frag', 'https://example.com/Path?Q=1#Frag'],
    ['http://example.com:80/a/../b', 'http://example.com/b'],
    ['  https://example.com/x  ', 'https://example.com/x'],
    ['https://example.com/a b', 'https://example.com/a%20b'],
    ['https://bücher.example/ä?q=ü', 'https://xn--bcher-kva.example/%C3%A4?q=%C3%BC'],
    ['https://example.com:8443/', 'https://example.com:8443/'],
    ['https://other.sho.rt/', 'https://other.sho.rt/'],
    // Over 2048 characters as sent, 21 once normalised: the limit is on the stored form.
    [`https://example.com/${'a/../'.repeat(500)}x`, 'https://example.com/x'],
    [`HTTPS://EXAMPLE.COM:443/${'./'.repeat(1100)}x`, 'https://example.com/x'],
  ];
  for (const [input, stored] of accepted) {
    test(`accepts ${JSON.stringify(input.slice(0, 60))} (${input.length} characters) and stores it normalised`, () => {
      assert.deepEqual(checkTargetUrl(input, SELF), { ok: true, url: stored });
    });
  }

  const refused: [string, string][] = [
    ['javascript:alert(1)', 'URL_SCHEME_NOT_ALLOWED'],
    ['JaVaScRiPt:alert(1)', 'URL_SCHEME_NOT_ALLOWED'],
    [' javascript:alert(1)', 'URL_SCHEME_NOT_ALLOWED'],
    ['java\tscript:alert(1)', 'URL_CONTROL_CHARACTERS'],
    ['java\nscript:alert(1)', 'URL_CONTROL_CHARACTERS'],
    ['\u0000javascript:alert(1)', 'URL_CONTROL_CHARACTERS'],
    ['data:text/html,<script>alert(1)</script>', 'URL_SCHEME_NOT_ALLOWED'],
    ['file:///etc/passwd', 'URL_SCHEME_NOT_ALLOWED'],
    ['vbscript:msgbox(1)', 'URL_SCHEME_NOT_ALLOWED'],
    ['ftp://example.com/', 'URL_SCHEME_NOT_ALLOWED'],
    ['//example.com/x', 'URL_NOT_ABSOLUTE'],
    ['\\\\example.com/x', 'URL_NOT_ABSOLUTE'],
    ['/relative/path', 'URL_NOT_ABSOLUTE'],
    ['example.com', 'URL_NOT_ABSOLUTE'],
    ['http:example.com', 'URL_NOT_ABSOLUTE'],
    ['https:\\\\example.com', 'URL_NOT_ABSOLUTE'],
    ['http://', 'URL_INVALID'],
    ['http://exa mple.com/', 'URL_INVALID'],
    ['https://user:pass@example.com/', 'URL_CREDENTIALS_NOT_ALLOWED'],
    ['https://user@example.com/', 'URL_CREDENTIALS_NOT_ALLOWED'],
    ['https://example.com/\u202eevil', 'URL_CONTROL_CHARACTERS'],
    ['https://exa\u200bmple.com/', 'URL_CONTROL_CHARACTERS'],
    ['https://example.com/\u2028', 'URL_CONTROL_CHARACTERS'],
    ['https://example.com/\u0085', 'URL_CONTROL_CHARACTERS'],
    ['https://example.com/\u007f', 'URL_CONTROL_CHARACTERS'],
    // By Unicode category, not a list of ranges: Cf (soft hyphen, isolates, Arabic letter mark,
    // Mongolian vowel separator, tags), Zp.
    ['https://exam\u00adple.com/', 'URL_CONTROL_CHARACTERS'],
    ['https://example.com/\u2066x\u2069', 'URL_CONTROL_CHARACTERS'],
    ['https://example.com/\u061c', 'URL_CONTROL_CHARACTERS'],
    ['https://example.com/\u180e', 'URL_CONTROL_CHARACTERS'],
    ['https://example.com/\u{e0041}', 'URL_CONTROL_CHARACTERS'],
    ['https://example.com/\u2029', 'URL_CONTROL_CHARACTERS'],
    ['https://sho.rt/abc', 'URL_SELF_REFERENCE'],
    ['https://SHO.RT./abc', 'URL_SELF_REFERENCE'],
    ['http://sho.rt:8080/abc', 'URL_SELF_REFERENCE'],
    [`https://example.com/${'a'.repeat(2048)}`, 'URL_TOO_LONG'],
    [`https://example.com/${'é'.repeat(700)}`, 'URL_TOO_LONG'],
    ['', 'URL_NOT_ABSOLUTE'],
  ];
  for (const [input, code] of refused) {
    test(`refuses ${JSON.stringify(input.slice(0, 60))} with ${code}`, () => {
      assert.deepEqual(checkTargetUrl(input, SELF), { ok: false, code });
    });
  }
});

describe('link requests', () => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  test('expiresAt must be an RFC 3339 date-time with a zone, in the future', () => {
    const check = (expiresAt: string | null) => checkLinkRequest({ url: 'https://example.com', expiresAt }, SELF, now);
    assert.equal(check('2026-06-02T00:00:00Z').ok, true);
    assert.equal(check('2026-06-02T02:00:00.123+02:00').ok, true);
    assert.deepEqual(check(null), {
      ok: true,
      request: {
        domainId: 0,
        url: 'https://example.com/',
        alias: undefined,
        expiresAt: null,
        startsAt: null,
        title: null,
        tags: [],
        options: null,
      },
    });
    assert.deepEqual(check('2026-05-31T23:59:59Z'), { ok: false, code: 'EXPIRES_AT_IN_PAST' });
    for (const bad of [
      '2026-06-02',
      '2026-06-02T00:00:00',
      'tomorrow',
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '1780000000',
      '2999-01-01T00:00:00Z',
    ]) {
      assert.deepEqual(check(bad), { ok: false, code: 'EXPIRES_AT_INVALID' }, bad);
    }
  });
  test('parses what it accepts to the right instant', () => {
    assert.equal(parseDateTime('2026-06-02T02:00:00+02:00')?.toISOString(), '2026-06-02T00:00:00.000Z');
  });
  test('checks the alias', () => {
    assert.deepEqual(checkLinkRequest({ url: 'https://example.com', alias: 'links' }, SELF, now), { ok: false, code: 'ALIAS_RESERVED' });
    assert.deepEqual(checkLinkRequest({ url: 'https://example.com', alias: 'a b c' }, SELF, now), { ok: false, code: 'ALIAS_INVALID' });
  });
});
