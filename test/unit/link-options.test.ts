// Link options (core/link-options.ts) and their compiled rules (core/redirect-rules.ts): pure, no services.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkLinkOptions, type LinkOptionsInput } from '../../src/core/link-options.ts';
import {
  compileRules,
  languageMatches,
  mergeQuery,
  preferredLanguage,
  queryHas,
  safeQuery,
  TARGET_RULE,
  TARGET_URL,
  TARGET_VARIANT,
  type DeviceFacts,
  type LinkRules,
  type Visitor,
} from '../../src/core/redirect-rules.ts';
import { createHash } from 'node:crypto';
import { appPage, intentUrl, isWebUrl } from '../../src/core/app-page.ts';
import { targetPolicyOf } from '../../src/core/target-policy.ts';

const POLICY = targetPolicyOf({
  baseUrl: 'https://sho.rt',
  allowPrivateTargets: false,
  allowShortenerTargets: false,
  blockedDomains: new Set(['blocked.example']),
});
const NOW = Date.parse('2026-12-04T12:00:00Z');
const PLAIN = { redirectStatus: 302, forwardQuery: false } as const;

function refused(input: LinkOptionsInput): { code: string; field: string } {
  const verdict = checkLinkOptions(input, POLICY, NOW);
  assert.equal(verdict.ok, false, `accepted ${JSON.stringify(input)}`);
  if (verdict.ok) throw new Error('unreachable');
  return { code: verdict.code, field: verdict.field };
}

function rulesOf(input: LinkOptionsInput, url = 'https://example.com/default', defaults = PLAIN): LinkRules {
  const verdict = checkLinkOptions(input, POLICY, NOW);
  if (!verdict.ok) throw new Error(`refused: ${verdict.code} ${verdict.field}`);
  const rules = compileRules(url, verdict.options, defaults);
  if (rules === null) throw new Error('compiled to a plain link');
  return rules;
}

/** A visitor with these facts; asking for a fact it was not given fails the test (rules read only what they need). */
function visitor(facts: { device?: DeviceFacts; country?: string; language?: string; query?: string; bucket?: number }): Visitor {
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the rules asked for ${what}, which no rule needs`);
    return value;
  };
  return {
    device: () => need(facts.device, 'the device'),
    country: () => need(facts.country, 'the country'),
    language: () => need(facts.language, 'the language'),
    query: () => need(facts.query, 'the query'),
    bucket: () => need(facts.bucket, 'the bucket'),
  };
}

describe('link options: what is accepted and stored', () => {
  test('nothing asked for is null (a plain link), and values are normalised', () => {
    for (const input of [{}, { targets: [] }, { split: [] }, { redirectStatus: null, forwardQuery: null, targets: null, split: null }])
      assert.deepEqual(checkLinkOptions(input, POLICY, NOW), { ok: true, options: null }, JSON.stringify(input));
    const verdict = checkLinkOptions(
      {
        redirectStatus: 308,
        forwardQuery: false,
        targets: [
          { when: { country: ['de', 'DE', 'at'], language: ['PT-br'] }, url: 'HTTPS://Example.COM/x' },
          { when: { from: '2027-01-01T01:00:00+01:00', until: '2027-02-01T00:00:00Z' }, url: 'https://example.com/jan' },
        ],
        split: [
          { url: 'https://example.com/a', weight: 25 },
          { url: 'https://example.com/b', weight: 75 },
        ],
      },
      POLICY,
      NOW,
    );
    assert.deepEqual(verdict, {
      ok: true,
      options: {
        redirectStatus: 308,
        forwardQuery: false,
        targets: [
          { when: { country: ['DE', 'AT'], language: ['pt-br'] }, url: 'https://example.com/x' },
          { when: { from: '2027-01-01T00:00:00.000Z', until: '2027-02-01T00:00:00.000Z' }, url: 'https://example.com/jan' },
        ],
        split: [
          { url: 'https://example.com/a', weight: 25 },
          { url: 'https://example.com/b', weight: 75 },
        ],
      },
    });
  });

  test('each kind of bad option is refused with its code and the field it is about', () => {
    const cases: [LinkOptionsInput, string, string][] = [
      [{ redirectStatus: 303 }, 'REDIRECT_STATUS_INVALID', 'options.redirectStatus'],
      [{ redirectStatus: '301' }, 'REDIRECT_STATUS_INVALID', 'options.redirectStatus'],
      [{ forwardQuery: 'yes' }, 'BODY_INVALID', 'options.forwardQuery'],
      [{ targets: {} }, 'TARGET_RULE_INVALID', 'options.targets'],
      [
        { targets: Array.from({ length: 21 }, () => ({ when: { country: ['DE'] }, url: 'https://example.com/' })) },
        'TARGET_RULE_INVALID',
        'options.targets',
      ],
      [{ targets: [{ url: 'https://example.com/' }] }, 'TARGET_RULE_INVALID', 'options.targets[0]'],
      [{ targets: [{ when: {}, url: 'https://example.com/' }] }, 'TARGET_RULE_INVALID', 'options.targets[0].when'],
      [
        { targets: [{ when: { weather: ['rain'] }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.weather',
      ],
      [
        { targets: [{ when: { device: ['phone'] }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.device',
      ],
      [{ targets: [{ when: { device: [] }, url: 'https://example.com/' }] }, 'TARGET_RULE_INVALID', 'options.targets[0].when.device'],
      [
        { targets: [{ when: { country: ['Germany'] }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.country',
      ],
      [
        { targets: [{ when: { language: ['english!'] }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.language',
      ],
      [
        { targets: [{ when: { query: { name: '' } }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.query',
      ],
      [
        { targets: [{ when: { query: { name: 'a&b' } }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.query',
      ],
      [{ targets: [{ when: { from: 'tomorrow' }, url: 'https://example.com/' }] }, 'TARGET_RULE_INVALID', 'options.targets[0].when.from'],
      [
        { targets: [{ when: { until: '2026-12-01T00:00:00Z' }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.until',
      ],
      [
        { targets: [{ when: { from: '2027-02-01T00:00:00Z', until: '2027-01-01T00:00:00Z' }, url: 'https://example.com/' }] },
        'TARGET_RULE_INVALID',
        'options.targets[0].when.until',
      ],
      [{ targets: [{ when: { country: ['DE'] }, url: 'ftp://example.com/' }] }, 'URL_SCHEME_NOT_ALLOWED', 'options.targets[0].url'],
      [{ targets: [{ when: { country: ['DE'] }, url: 'https://10.0.0.1/' }] }, 'URL_PRIVATE_ADDRESS', 'options.targets[0].url'],
      [{ targets: [{ when: { country: ['DE'] }, url: 'https://blocked.example/' }] }, 'URL_DOMAIN_BLOCKED', 'options.targets[0].url'],
      [{ targets: [{ when: { country: ['DE'] }, url: 'https://sho.rt/abc' }] }, 'URL_SELF_REFERENCE', 'options.targets[0].url'],
      [{ split: [{ url: 'https://example.com/a', weight: 100 }] }, 'SPLIT_INVALID', 'options.split'],
      [{ preview: {} }, 'PREVIEW_INVALID', 'options.preview'],
      [{ preview: { title: '   ' } }, 'PREVIEW_INVALID', 'options.preview'],
      [{ preview: 'a title' }, 'PREVIEW_INVALID', 'options.preview'],
      [{ preview: { title: 'x'.repeat(201) } }, 'PREVIEW_INVALID', 'options.preview.title'],
      [{ preview: { description: 'line\u2028break' } }, 'PREVIEW_INVALID', 'options.preview.description'],
      [{ preview: { title: 'Sale', colour: 'red' } }, 'PREVIEW_INVALID', 'options.preview.colour'],
      [{ preview: { image: 'file:///etc/passwd' } }, 'URL_SCHEME_NOT_ALLOWED', 'options.preview.image'],
      [{ preview: { image: 'https://192.168.1.1/x.png' } }, 'URL_PRIVATE_ADDRESS', 'options.preview.image'],
      [{ deepLink: {} }, 'DEEP_LINK_INVALID', 'options.deepLink'],
      [{ deepLink: { ios: 'javascript:alert(1)' } }, 'DEEP_LINK_INVALID', 'options.deepLink.ios'],
      [{ deepLink: { android: 'intent://x#Intent;end' } }, 'DEEP_LINK_INVALID', 'options.deepLink.android'],
      [{ deepLink: { ios: 'myapp://a b' } }, 'DEEP_LINK_INVALID', 'options.deepLink.ios'],
      [{ deepLink: { ios: 'no scheme' } }, 'DEEP_LINK_INVALID', 'options.deepLink.ios'],
      [{ deepLink: { ios: 'myapp://x', windows: 'myapp://x' } }, 'DEEP_LINK_INVALID', 'options.deepLink.windows'],
      [{ deepLink: { android: 'https://127.0.0.1/app' } }, 'URL_PRIVATE_ADDRESS', 'options.deepLink.android'],
      [
        {
          split: [
            { url: 'https://example.com/a', weight: 50 },
            { url: 'https://example.com/b', weight: 40 },
          ],
        },
        'SPLIT_INVALID',
        'options.split',
      ],
      [
        {
          split: [
            { url: 'https://example.com/a', weight: 50.5 },
            { url: 'https://example.com/b', weight: 49.5 },
          ],
        },
        'SPLIT_INVALID',
        'options.split[0].weight',
      ],
      [
        {
          split: [
            { url: 'https://example.com/a', weight: 50 },
            { url: 'javascript:alert(1)', weight: 50 },
          ],
        },
        'URL_SCHEME_NOT_ALLOWED',
        'options.split[1].url',
      ],
    ];
    for (const [input, code, field] of cases) assert.deepEqual(refused(input), { code, field }, JSON.stringify(input));
  });

  test("a rule's URL error names the rule's field in its message", () => {
    const verdict = checkLinkOptions({ targets: [{ when: { country: ['DE'] }, url: 'https://10.0.0.1/' }] }, POLICY, NOW);
    assert.equal(verdict.ok, false);
    if (!verdict.ok) assert.match(verdict.message ?? '', /^options\.targets\[0\]\.url points at/);
  });
});

describe('compiled rules', () => {
  test('a link without options, or with options that change nothing, stays plain', () => {
    assert.equal(compileRules('https://example.com/', null, PLAIN), null);
    assert.equal(compileRules('https://example.com/', { redirectStatus: 302, forwardQuery: false }, PLAIN), null);
    // The deployment's defaults make every link a ruled one.
    assert.equal(compileRules('https://example.com/', null, { redirectStatus: 301, forwardQuery: false })?.status, 301);
    assert.equal(compileRules('https://example.com/', null, { redirectStatus: 302, forwardQuery: true })?.forwardQuery, true);
    // A link's own choice overrides them.
    assert.equal(compileRules('https://example.com/', { forwardQuery: false }, { redirectStatus: 302, forwardQuery: true }), null);
  });

  test('the first rule whose every condition holds wins; none: the link URL; each reads only what it needs', () => {
    const rules = rulesOf({
      targets: [
        { when: { device: ['ios'], country: ['US'] }, url: 'https://example.com/ios-us' },
        { when: { language: ['de'] }, url: 'https://example.com/de' },
        { when: { query: { name: 'src', value: 'sms' } }, url: 'https://example.com/sms' },
        { when: { query: { name: 'promo' } }, url: 'https://example.com/promo' },
      ],
    });
    const ios = { os: 'ios', type: 'mobile' } as const;
    const desktop = { os: '', type: 'desktop' } as const;
    assert.equal(rules.location(visitor({ device: ios, country: 'US' }), NOW), 'https://example.com/ios-us');
    assert.equal(rules.location(visitor({ device: ios, country: 'DE', language: 'de-at' }), NOW), 'https://example.com/de');
    assert.equal(rules.location(visitor({ device: desktop, language: 'en', query: 'src=sms' }), NOW), 'https://example.com/sms');
    assert.equal(rules.location(visitor({ device: desktop, language: 'en', query: 'a=1&promo' }), NOW), 'https://example.com/promo');
    assert.equal(rules.location(visitor({ device: desktop, language: '', query: '' }), NOW), 'https://example.com/default');
    assert.equal(rules.target(visitor({ device: desktop, language: 'de' }), NOW), TARGET_RULE + 1);
    assert.equal(rules.target(visitor({ device: desktop, language: 'en', query: '' }), NOW), TARGET_URL);
  });

  test('a time window holds from its start and until (not at) its end', () => {
    const rules = rulesOf({
      targets: [{ when: { from: '2027-01-01T00:00:00Z', until: '2027-01-02T00:00:00Z' }, url: 'https://example.com/day' }],
    });
    const at = (iso: string) => rules.location(visitor({}), Date.parse(iso));
    assert.equal(at('2026-12-31T23:59:59.999Z'), 'https://example.com/default');
    assert.equal(at('2027-01-01T00:00:00Z'), 'https://example.com/day');
    assert.equal(at('2027-01-01T23:59:59.999Z'), 'https://example.com/day');
    assert.equal(at('2027-01-02T00:00:00Z'), 'https://example.com/default');
  });

  test('a split gives each bucket its variant by the weights, after the rules', () => {
    const rules = rulesOf({
      targets: [{ when: { country: ['FR'] }, url: 'https://example.com/fr' }],
      split: [
        { url: 'https://example.com/a', weight: 10 },
        { url: 'https://example.com/b', weight: 60 },
        { url: 'https://example.com/c', weight: 30 },
      ],
    });
    const counts = new Map<string, number>();
    for (let bucket = 0; bucket < 100; bucket++) {
      const where = rules.location(visitor({ country: 'DE', bucket }), NOW);
      counts.set(where, (counts.get(where) ?? 0) + 1);
    }
    assert.deepEqual(Object.fromEntries(counts), { 'https://example.com/a': 10, 'https://example.com/b': 60, 'https://example.com/c': 30 });
    assert.equal(rules.location(visitor({ country: 'FR' }), NOW), 'https://example.com/fr');
    assert.equal(rules.target(visitor({ country: 'DE', bucket: 69 }), NOW), TARGET_VARIANT + 1);
    assert.equal(rules.target(visitor({ country: 'FR' }), NOW), TARGET_RULE);
  });

  test('device conditions match by OS or by device type', () => {
    const rules = rulesOf({
      targets: [
        { when: { device: ['android'] }, url: 'https://example.com/android' },
        { when: { device: ['tablet', 'desktop'] }, url: 'https://example.com/big' },
      ],
    });
    assert.equal(rules.location(visitor({ device: { os: 'android', type: 'tablet' } }), NOW), 'https://example.com/android');
    assert.equal(rules.location(visitor({ device: { os: 'ios', type: 'tablet' } }), NOW), 'https://example.com/big');
    assert.equal(rules.location(visitor({ device: { os: '', type: 'mobile' } }), NOW), 'https://example.com/default');
  });
});

describe('a social preview', () => {
  test('crawlers get a page of Open Graph tags, escaped, under a strict CSP; the link is ruled for it alone', () => {
    const rules = rulesOf(
      { preview: { title: ' Sale "now" <b>50%</b> ', description: "Tom & Jerry's", image: 'https://cdn.example/a.png?x=1&y=2' } },
      'https://example.com/t?a=1&b=%3C2%3E',
    );
    const page = rules.preview;
    assert.ok(page !== null);
    assert.equal(page.status, 200);
    const head = new Map<string, string>();
    for (let i = 0; i < page.head.length; i += 2) head.set(page.head[i] as string, page.head[i + 1] as string);
    assert.equal(head.get('content-type'), 'text/html; charset=utf-8');
    assert.match(head.get('content-security-policy') ?? '', /^default-src 'none';/);
    assert.equal(head.get('content-length'), String(Buffer.byteLength(page.body)));
    assert.match(page.body, /<meta property="og:title" content="Sale &quot;now&quot; &lt;b&gt;50%&lt;\/b&gt;">/);
    assert.match(page.body, /<meta property="og:description" content="Tom &amp; Jerry&#39;s">/);
    assert.match(page.body, /<meta property="og:image" content="https:\/\/cdn\.example\/a\.png\?x=1&amp;y=2">/);
    assert.match(page.body, /<meta name="twitter:card" content="summary_large_image">/);
    assert.match(page.body, /<a href="https:\/\/example\.com\/t\?a=1&amp;b=%3C2%3E">/);
    assert.ok(!/<script|<style|<b>/.test(page.body), 'no script, no style, no markup of the text');
    // People still get the plain redirect's target.
    assert.equal(rules.status, 302);
    assert.equal(rules.location(visitor({}), NOW), 'https://example.com/t?a=1&b=%3C2%3E');
  });
});

describe('deep links', () => {
  test('Android: a custom scheme becomes an intent that falls back to the web target; iOS: a page that opens the app, then the web', () => {
    assert.equal(
      intentUrl('myapp://product/42?ref=sms#top', 'https://example.com/p?a=1&b=2'),
      'intent://product/42?ref=sms#Intent;scheme=myapp;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fp%3Fa%3D1%26b%3D2;end',
    );
    assert.equal(
      intentUrl('fb:profile/1', 'https://example.com/'),
      'intent://profile/1#Intent;scheme=fb;S.browser_fallback_url=https%3A%2F%2Fexample.com%2F;end',
    );
    assert.equal(isWebUrl('https://app.example/open'), true);
    assert.equal(isWebUrl('myapp://x'), false);
    const page = appPage('myapp://p?a=1&b="2"', 'https://example.com/w?x=<1>');
    const csp = page.head[page.head.indexOf('content-security-policy') + 1] ?? '';
    const script = /<script>([^<]*)<\/script>/.exec(page.body)?.[1] ?? '';
    // The page's one script is the one its CSP's hash allows; nothing else may run.
    assert.equal(csp.match(/'sha256-([^']+)'/)?.[1], createHash('sha256').update(script).digest('base64'));
    assert.match(csp, /^default-src 'none'; script-src 'sha256-/);
    assert.match(page.body, /<a id="app" href="myapp:\/\/p\?a=1&amp;b=&quot;2&quot;">/);
    assert.match(page.body, /<a id="web" href="https:\/\/example\.com\/w\?x=&lt;1&gt;">/);
    assert.equal(page.head[page.head.indexOf('cache-control') + 1], 'no-store');
  });
});

describe('the request facts rules read', () => {
  test('the preferred language is the highest quality, the first of equals; * and malformed ranges are none', () => {
    const cases: [string | undefined, string][] = [
      [undefined, ''],
      ['', ''],
      ['*', ''],
      ['de-DE', 'de-de'],
      ['en-US,en;q=0.9,de;q=0.8', 'en-us'],
      ['fr;q=0.4, de;q=0.9, en;q=0.9', 'de'],
      ['en;q=0, pt-BR;q=0.1', 'pt-br'],
      ['en;q=garbage, es', 'es'],
      ['!!,ja', 'ja'],
    ];
    for (const [header, tag] of cases) assert.equal(preferredLanguage(header), tag, String(header));
    assert.equal(languageMatches(['pt'], 'pt-br'), true);
    assert.equal(languageMatches(['pt-br'], 'pt'), false);
    assert.equal(languageMatches(['pt'], 'ptx'), false);
    assert.equal(languageMatches(['en-gb'], 'en-gb-oxendict'), true);
  });

  test('query parameters are compared percent-decoded', () => {
    assert.equal(queryHas('a=1&src=sms', 'src', 'sms'), true);
    assert.equal(queryHas('src=%73ms', 'src', 'sms'), true);
    assert.equal(queryHas('src=mms', 'src', 'sms'), false);
    assert.equal(queryHas('src', 'src', undefined), true);
    assert.equal(queryHas('', 'src', undefined), false);
  });

  test("forwarding: the request's parameters replace the target's of the same name, the fragment stays last", () => {
    const cases: [string, string, string][] = [
      ['https://example.com/p', 'a=1', 'https://example.com/p?a=1'],
      ['https://example.com/p?a=0&b=2&a=3', 'a=1&c=4', 'https://example.com/p?b=2&a=1&c=4'],
      ['https://example.com/p?utm_source=web#top', 'utm_source=sms', 'https://example.com/p?utm_source=sms#top'],
      ['https://example.com/p?x=1', '&&', 'https://example.com/p?x=1'],
      ['https://example.com/p', 'q=%E2%9C%93&sp=a+b', 'https://example.com/p?q=%E2%9C%93&sp=a+b'],
      ['https://example.com/p?a%20b=1', 'a+b=2', 'https://example.com/p?a+b=2'],
    ];
    for (const [target, query, merged] of cases) assert.equal(mergeQuery(target, query), merged, `${target} + ${query}`);
    // Too long for a Location once merged: the target as it is.
    const long = 'x='.concat('y'.repeat(2100));
    assert.equal(mergeQuery('https://example.com/p', long), 'https://example.com/p');
  });

  test('a query goes into a Location only as RFC 3986 characters', () => {
    assert.equal(safeQuery('a=b&c=%20'), 'a=b&c=%20');
    assert.equal(safeQuery('a="<x>"'), 'a=%22%3Cx%3E%22');
    assert.equal(safeQuery('p=100%&q=%zz'), 'p=100%25&q=%25zz');
    assert.equal(safeQuery('n=\u00e9'), 'n=%E9');
    assert.match(mergeQuery('https://example.com/', 'a={|}\\^`'), /^[\x21-\x7e]+$/);
  });
});
