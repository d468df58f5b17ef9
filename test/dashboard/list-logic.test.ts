// The links list's pure parts (web/src/links/list/monogram.ts, list-filters.ts): a target's monogram,
// made from its host alone, and the count the phone's "Filters (n)" button shows.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MONOGRAM_COLOURS, monogramOf } from '../../web/src/links/list/monogram.ts';
import { NO_FILTERS, setFilterCount } from '../../web/src/links/list-filters.ts';

describe('monogramOf', () => {
  test("the first letters of the site's name, without www, a subdomain or the public suffix", () => {
    assert.equal(monogramOf('https://www.example.com/a').letters, 'EX');
    assert.equal(monogramOf('https://shop.acme.co.uk/').letters, 'AC');
    assert.equal(monogramOf('https://t.co/x').letters, 'T');
    assert.equal(monogramOf('https://über.example.de/').letters, 'EX');
    assert.equal(monogramOf('https://b\u00fccher.de/').letters, 'BC', 'punycode: xn--bcher-kva');
    assert.equal(monogramOf('http://127.0.0.2:8080/landing').letters, '12');
    assert.equal(monogramOf('http://[::1]:3000/').letters, '1');
    assert.equal(monogramOf('not a url').letters, '?');
  });

  test('the same host always has the same colour, one of the stylesheet’s', () => {
    const a = monogramOf('https://example.com/one');
    assert.equal(monogramOf('https://www.example.com/two').colour, a.colour);
    const colours = new Set(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((x) => monogramOf(`https://${x}-site.org/`).colour));
    assert.ok(colours.size > 1, 'hosts spread over the colours');
    for (const colour of colours) assert.ok(colour >= 0 && colour < MONOGRAM_COLOURS);
  });
});

test('"Filters (n)" counts the filters behind the button, not the search or the order', () => {
  assert.equal(setFilterCount(NO_FILTERS), 0);
  assert.equal(setFilterCount({ ...NO_FILTERS, q: 'spring', sort: 'clicks' }), 0);
  assert.equal(setFilterCount({ ...NO_FILTERS, tag: 'sms', state: 'disabled', creator: 'me', domain: 'go.example.com' }), 4);
});
