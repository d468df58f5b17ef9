// The dashboard's pure helpers (web/src): what a form sends the API, what the address bar holds,
// and which field an API error belongs to. The browser test (test/dashboard/dashboard.test.ts) sees them at
// work; these pin the cases a page rarely shows.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError, fieldOf } from '../../web/src/api/errors.ts';
import { fromDateTimeLocal, parseTags, toDateTimeLocal, utcDay } from '../../web/src/shared/format.ts';
import { exportHref, filtersSearch, listQuery, readFilters } from '../../web/src/links/list-filters.ts';

describe('forms', () => {
  test('an expiry typed as local wall time is sent as an instant with its zone, and shown back as it was typed', () => {
    const sent = fromDateTimeLocal('2031-06-01T12:30');
    assert.ok(sent !== null && sent.endsWith('Z'), String(sent));
    assert.equal(new Date(sent).getTime(), new Date(2031, 5, 1, 12, 30).getTime());
    assert.equal(toDateTimeLocal(sent), '2031-06-01T12:30');
    assert.equal(fromDateTimeLocal('  '), null, 'empty: never expires');
    assert.equal(fromDateTimeLocal('not a date'), 'not a date', 'passed on for the API to refuse with its own message');
  });

  test('tags typed with commas: trimmed, empty ones dropped, the rest left to the API', () => {
    assert.deepEqual(parseTags(' spring, ,sale ,2026,'), ['spring', 'sale', '2026']);
    assert.deepEqual(parseTags(''), []);
  });

  test('each error code of a link goes next to its field; others to the form', () => {
    for (const [code, field] of [
      ['URL_PRIVATE_ADDRESS', 'url'],
      ['URL_SCHEME_NOT_ALLOWED', 'url'],
      ['ALIAS_TAKEN', 'alias'],
      ['ALIAS_RESERVED', 'alias'],
      ['EXPIRES_AT_IN_PAST', 'expiresAt'],
      ['TITLE_INVALID', 'title'],
      ['TAGS_INVALID', 'tags'],
      ['RATE_LIMITED', null],
      ['DATABASE_UNAVAILABLE', null],
    ] as const) {
      assert.equal(fieldOf(new ApiError(400, code, 'm')), field, code);
    }
  });

  test('UTC days for the stats range', () => {
    assert.equal(utcDay(new Date('2026-03-01T00:30:00Z'), -1), '2026-02-28');
    assert.equal(utcDay(new Date('2028-03-01T23:59:00Z'), -1), '2028-02-29');
  });
});

describe('the list in the address bar', () => {
  test('filters round-trip through the query string, unknown values fall back to the defaults', () => {
    const filters = readFilters({ q: 'spring sale', tag: 'sms', state: 'expired', creator: 'me', sort: 'clicks' });
    assert.equal(filtersSearch(filters), '?q=spring+sale&tag=sms&state=expired&creator=me&sort=clicks');
    assert.deepEqual(readFilters(Object.fromEntries(new URLSearchParams(filtersSearch(filters)))), filters);
    assert.deepEqual(readFilters({ state: 'deleted', sort: 'random', creator: '7' }), readFilters({}));
    assert.equal(filtersSearch(readFilters({})), '');
  });

  test('the API is asked with the signed-in key\'s id for "me", no search under 3 characters, and the export with the same filters', () => {
    assert.deepEqual(listQuery(readFilters({ q: 'ab', creator: 'me' }), 42), { sort: 'created', creator: 42 });
    assert.deepEqual(listQuery(readFilters({ q: ' spring ', tag: 'sms' }), 42), { sort: 'created', q: 'spring', tag: 'sms' });
    const href = exportHref(readFilters({ q: 'spring', state: 'active', creator: 'me', sort: 'clicks' }), 42);
    const url = new URL(href, 'http://x');
    assert.equal(url.pathname, '/links/export.csv');
    assert.deepEqual(
      Object.fromEntries(url.searchParams),
      { q: 'spring', state: 'active', creator: '42' },
      'no sort: the export takes none',
    );
    assert.equal(exportHref(readFilters({}), 42), '/links/export.csv');
  });
});
