// The pages a browser gets for a dead link, and who gets them: which Accept headers prefer HTML,
// what each state's page says, in a brand or without one, escaped, with a CSP that allows its one
// style sheet and nothing else, and the password form in the same brand.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { prefersHtml } from '../../src/core/accept.ts';
import type { Brand } from '../../src/core/brand.ts';
import { contrastRatio, textOn } from '../../src/core/contrast.ts';
import type { HtmlPage } from '../../src/core/html-page.ts';
import { passwordPage } from '../../src/core/password-page.ts';
import { VISITOR_STATES, visitorPages } from '../../src/core/visitor-page.ts';

const CHROME = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';
const FIREFOX = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SAFARI = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A 1x1 PNG. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const BRAND: Brand = { name: 'Acme & Co', color: '#ffcc00', logo: { type: 'image/png', base64: PIXEL, hash: 'x' } };

const header = (page: HtmlPage, name: string) => {
  const at = page.head.indexOf(name);
  return at === -1 ? undefined : page.head[at + 1];
};

test("a browser's navigation prefers HTML; an API client (no Accept, */*, JSON first) does not", () => {
  for (const accept of [
    CHROME,
    FIREFOX,
    SAFARI,
    'text/html',
    'TEXT/HTML; charset=utf-8',
    'application/json;q=0.5, text/html',
    'text/html, application/json',
  ])
    assert.equal(prefersHtml(accept), true, accept);
  for (const accept of [
    undefined,
    '',
    '*/*',
    'application/json',
    'application/json, text/plain, */*',
    'text/html;q=0.5, application/json',
    'text/html;q=0.9, application/*',
    'text/html;q=0, */*',
    'text/html;q=abc',
    'text/plain, */*;q=0.1',
    'application/xhtml+xml',
  ])
    assert.equal(prefersHtml(accept), false, String(accept));
});

test('each dead-link state has its page: its status, its words, the host, a way on, no script, a strict CSP', () => {
  const pages = visitorPages({ host: 'go.example.com', brand: null, rooted: true });
  const expected: Record<string, [number, string]> = {
    LINK_NOT_FOUND: [404, "This link doesn't exist"],
    LINK_EXPIRED: [410, 'This link has expired'],
    LINK_DISABLED: [410, 'This link has been turned off'],
    LINK_CLICK_LIMIT_REACHED: [410, 'This link has been used up'],
    LINK_NOT_YET_ACTIVE: [404, "This link isn't active yet"],
    LINK_BLOCKED: [451, 'This link has been blocked'],
  };
  assert.deepEqual([...VISITOR_STATES].sort(), Object.keys(expected).sort());
  for (const [code, [status, title]] of Object.entries(expected)) {
    const page = pages.get(code);
    assert.ok(page !== undefined, code);
    assert.equal(page.status, status, code);
    assert.ok(page.body.includes(`<h1>${title}</h1>`), code);
    assert.ok(page.body.includes('<span class="host">go.example.com</span>'), code);
    assert.ok(page.body.includes('You did nothing wrong'), code);
    assert.ok(page.body.includes('<a class="on accent" href="/">Go to go.example.com</a>'), code);
    assert.ok(!/<script/i.test(page.body) && !/ on\w+=/i.test(page.body) && !/ style=/i.test(page.body), code);
    assert.equal(header(page, 'content-type'), 'text/html; charset=utf-8');
    assert.equal(header(page, 'cache-control'), 'no-store');
    assert.equal(header(page, 'x-content-type-options'), 'nosniff');
    assert.equal(header(page, 'referrer-policy'), 'no-referrer');
    assert.equal(header(page, 'vary'), 'accept');
    assert.equal(header(page, 'content-length'), String(Buffer.byteLength(page.body)));
    const style = /<style>(.*?)<\/style>/.exec(page.body)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    assert.equal(
      header(page, 'content-security-policy'),
      `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
  }
  // A domain whose root leads nowhere offers no link to it.
  assert.ok(!visitorPages({ host: 'go.example.com', brand: null, rooted: false }).get('LINK_EXPIRED')?.body.includes('href='));
});

test("a brand's name, colour and logo show, escaped; the logo inlined and allowed by img-src data: alone", () => {
  const page = visitorPages({ host: 'go.example.com', brand: BRAND, rooted: true }).get('LINK_EXPIRED') as HtmlPage;
  assert.ok(page.body.includes(`<img src="data:image/png;base64,${PIXEL}" alt="">`));
  assert.ok(page.body.includes('<span>Acme &amp; Co</span>'));
  assert.ok(page.body.includes('Go to Acme &amp; Co</a>'));
  assert.ok(page.body.includes('<title>This link has expired · Acme &amp; Co</title>'));
  // Yellow is light: the text on it is black.
  assert.ok(page.body.includes('.accent{color:#000000;background:#ffcc00}'));
  assert.match(
    header(page, 'content-security-policy') ?? '',
    /^default-src 'none'; style-src 'sha256-[^']+'; img-src data:; base-uri 'none'/,
  );

  const hostile = visitorPages({
    host: 'a"b<c>.example',
    brand: { name: '<script>alert(1)</script>', color: '#000000', logo: null },
    rooted: true,
  }).get('LINK_NOT_FOUND') as HtmlPage;
  assert.ok(!hostile.body.includes('<script>'));
  assert.ok(hostile.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(hostile.body.includes('a&quot;b&lt;c&gt;.example'));
  assert.ok(!header(hostile, 'content-security-policy')?.includes('img-src'));
  // A logo without a name is named by the host.
  const nameless = visitorPages({ host: 'go.example.com', brand: { ...BRAND, name: null }, rooted: false }).get(
    'LINK_DISABLED',
  ) as HtmlPage;
  assert.ok(nameless.body.includes('alt="go.example.com"'));
});

test('the text on a brand colour meets WCAG AA (4.5:1) for every colour', () => {
  for (let r = 0; r < 256; r += 17)
    for (let g = 0; g < 256; g += 17)
      for (let b = 0; b < 256; b += 17) {
        const color = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
        assert.ok(contrastRatio(color, textOn(color)) >= 4.5, color);
      }
  assert.equal(textOn('#1d4ed8'), '#ffffff');
  assert.equal(textOn('#ffcc00'), '#000000');
  assert.equal(contrastRatio('#000000', '#ffffff'), 21);
});

test("the password form wears the domain's brand; without one it is the service's own page, unchanged", () => {
  assert.deepEqual(passwordPage(200, undefined, [], { host: 'go.example.com', brand: null }), passwordPage());
  const page = passwordPage(200, undefined, [], { host: 'go.example.com', brand: BRAND });
  assert.ok(page.body.includes('<header class="brand accent">'));
  assert.ok(page.body.includes('<button type="submit" class="accent">Continue</button>'));
  assert.ok(!/<script/i.test(page.body));
  const csp = header(page, 'content-security-policy') ?? '';
  const style = /<style>(.*?)<\/style>/.exec(page.body)?.[1] ?? '';
  assert.ok(csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'; img-src data:; form-action 'self'`));
});
