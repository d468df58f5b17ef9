// The dashboard's pure helpers for short domains (web/src/domains/domains.ts and the domain parts of
// api/errors.ts, links/link-key.ts, links/api.ts and links/list-filters.ts): which link a page and a request
// name, what the domain forms send, and which field an API error belongs to.
// test/dashboard/dashboard-domains.test.ts sees them at work in a browser.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError, fieldIn, fieldOf, toApiError } from '../../web/src/api/errors.ts';
import type { Domain } from '../../web/src/domains/api.ts';
import { qrUrl } from '../../web/src/links/api.ts';
import { linkElementId, linkHref, linkKeyOf, linkPath } from '../../web/src/links/link-key.ts';
import {
  defaultHostOf,
  domainFields,
  domainFormValues,
  fallbackChanges,
  moveTargets,
  newDomain,
  NO_DOMAIN_VALUES,
} from '../../web/src/domains/domains.ts';
import { exportHref, filtersSearch, hasFilters, listQuery, readFilters } from '../../web/src/links/list-filters.ts';

function domain(host: string, more: Partial<Domain> = {}): Domain {
  return {
    host,
    isDefault: false,
    rootRedirect: null,
    notFoundRedirect: null,
    expiredRedirect: null,
    links: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    verification: null,
    ...more,
  };
}

const DEFAULT = domain('sho.rt', { isDefault: true, createdAt: null });
const GO = domain('go.example.com', { notFoundRedirect: 'https://example.com/404', links: 2 });

describe('which link a page and a request name', () => {
  test('a link on the default domain is named by its code alone; any other, or any while the default is unknown, with its host', () => {
    assert.equal(defaultHostOf([DEFAULT, GO]), 'sho.rt');
    assert.equal(defaultHostOf(null), null);
    assert.deepEqual(linkKeyOf({ code: 'spring', domain: 'sho.rt' }, 'sho.rt'), { code: 'spring', domain: null });
    assert.deepEqual(linkKeyOf({ code: 'spring', domain: 'go.example.com' }, 'sho.rt'), { code: 'spring', domain: 'go.example.com' });
    assert.deepEqual(linkKeyOf({ code: 'spring', domain: 'sho.rt' }, null), { code: 'spring', domain: 'sho.rt' });
  });

  test("the link's dashboard page carries its domain in the query, and the same code on two domains gets two element ids", () => {
    assert.equal(linkHref({ code: 'spring', domain: null }), '/app/links/spring');
    assert.equal(linkHref({ code: 'a b', domain: 'go.example.com' }), '/app/links/a%20b?domain=go.example.com');
    assert.notEqual(
      linkElementId('row', { code: 'spring', domain: null }),
      linkElementId('row', { code: 'spring', domain: 'go.example.com' }),
    );
    assert.equal(linkElementId('row', { code: 'spring', domain: null }), 'row-spring');
  });

  test('every per-link API path passes ?domain= off the default domain, next to its own parameters', () => {
    const go = { code: 'spring', domain: 'go.example.com' };
    assert.equal(linkPath({ code: 'spring', domain: null }), '/links/spring');
    assert.equal(linkPath(go), '/links/spring?domain=go.example.com');
    assert.equal(
      linkPath(go, '/stats', { from: '2026-01-01', to: '2026-01-31' }),
      '/links/spring/stats?from=2026-01-01&to=2026-01-31&domain=go.example.com',
    );
    const qr = new URL(qrUrl(go, { format: 'png', size: 256, margin: 4, level: 'M' }), 'http://x');
    assert.equal(qr.pathname, '/links/spring/qr');
    assert.equal(qr.searchParams.get('domain'), 'go.example.com');
    assert.equal(qr.searchParams.get('format'), 'png');
  });
});

describe('the domain forms', () => {
  test('adding sends the host and the fallbacks filled in, trimmed', () => {
    assert.deepEqual(
      newDomain({ ...NO_DOMAIN_VALUES, host: ' go.example.com ', notFoundRedirect: ' https://example.com/404 ', rootRedirect: '  ' }),
      {
        host: 'go.example.com',
        notFoundRedirect: 'https://example.com/404',
      },
    );
  });

  test('editing sends only the fallbacks that changed; one emptied is cleared with null', () => {
    const values = domainFormValues(GO);
    assert.deepEqual(fallbackChanges(GO, values), {}, 'nothing changed, nothing sent');
    assert.deepEqual(fallbackChanges(GO, { ...values, notFoundRedirect: ' ', rootRedirect: 'https://example.com/' }), {
      rootRedirect: 'https://example.com/',
      notFoundRedirect: null,
    });
  });

  test('an error goes next to the field the API names: the host (when adding) or a fallback; any other to the form', () => {
    const error = (code: ApiError['code'], field: string | null = null) => new ApiError(400, code, 'm', null, field);
    assert.equal(fieldIn(error('DOMAIN_INVALID', 'host'), domainFields('create')), 'host');
    assert.equal(fieldIn(error('DOMAIN_TAKEN', 'host'), domainFields('create')), 'host');
    assert.equal(fieldIn(error('DOMAIN_INVALID', 'host'), domainFields('edit')), null, 'editing has no host field');
    assert.equal(fieldIn(error('URL_SCHEME_NOT_ALLOWED', 'expiredRedirect'), domainFields('edit')), 'expiredRedirect');
    assert.equal(fieldIn(error('URL_INVALID'), domainFields('create')), null, 'none named: the form');
    assert.equal(fieldIn(error('URL_INVALID', 'url'), domainFields('create')), null, 'a field the form does not have');
    assert.equal(fieldIn(error('RATE_LIMITED'), domainFields('create')), null);
  });

  test("a removed domain's links may move to any other domain, the default first", () => {
    const other = domain('links.example.org');
    assert.deepEqual(
      moveTargets([DEFAULT, GO, other], GO).map((d) => d.host),
      ['sho.rt', 'links.example.org'],
    );
  });

  test('an error answer names its field in error.field', () => {
    // What the typed client hands its error interceptors: the parsed error body, and the answer.
    const answer = new Response(null, { status: 400 });
    const top = toApiError({ error: { code: 'URL_INVALID', message: 'm', field: 'rootRedirect' } }, answer);
    assert.deepEqual([top.status, top.code, top.field], [400, 'URL_INVALID', 'rootRedirect']);
    assert.equal(toApiError({ error: { code: 'ALIAS_TAKEN', message: 'm' } }, answer).field, null);
  });

  test("creating a link on a domain that is not the workspace's is an error of the domain field", () => {
    assert.equal(fieldOf(new ApiError(400, 'DOMAIN_UNKNOWN', 'm')), 'domain');
  });
});

describe('the list filtered by domain', () => {
  test('the domain is kept in the address bar, sent to the list and to the export, and counts as a filter', () => {
    const filters = readFilters({ domain: 'go.example.com', sort: 'clicks' });
    assert.equal(filtersSearch(filters), '?domain=go.example.com&sort=clicks');
    assert.deepEqual(readFilters(Object.fromEntries(new URLSearchParams(filtersSearch(filters)))), filters);
    assert.ok(hasFilters(filters));
    assert.deepEqual(listQuery(filters, 42), { sort: 'clicks', domain: 'go.example.com' });
    assert.equal(exportHref(filters, 42), '/links/export.csv?domain=go.example.com');
    assert.equal(readFilters({}).domain, '');
  });
});
