// docs/configuration.md's table is rendered from the declarations in src/config/config.ts, each setting's links
// pointed at the page that has their section.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { linkSections, PAGE, pageTable, renderedTable } from '../../scripts/config-table.ts';

test("docs/configuration.md's table is the one src/config/config.ts declares", () => {
  assert.equal(
    pageTable(readFileSync(PAGE, 'utf8')),
    renderedTable(),
    'docs/configuration.md and src/config/config.ts disagree on the configuration: run `npm run config:table`',
  );
});

test("a setting's link points at the one page that has its section", () => {
  const pages = new Map([
    ['', '# Configuration\n\n## Limits\n'],
    ['api.md', '# API\n\n```sh\n# not a heading\n```\n\n### `GET /links`: list and search\n'],
    ['architecture.md', '# Architecture\n\n- <a id="click-counts"></a>**Click counts.**\n'],
    ['../README.md', '# shortener\n\n## Dashboard\n'],
  ]);
  const table = '[a](#limits) [b](#get-links-list-and-search) [c](#architecture) [d](#click-counts) [e](#dashboard)';
  assert.equal(
    linkSections(table, pages),
    '[a](#limits) [b](api.md#get-links-list-and-search) [c](architecture.md) [d](architecture.md#click-counts) [e](../README.md#dashboard)',
  );
  assert.throws(() => linkSections('[x](#not-a-heading)', pages), /no page of docs/);
  pages.set('security.md', '# Security\n\n## Limits\n\n## Dashboard\n');
  assert.throws(() => linkSections('[x](#dashboard)', pages), /name the page, `..\/README.md#dashboard` or `security.md#dashboard`/);
  assert.equal(linkSections('[x](security.md#dashboard)', pages), '[x](security.md#dashboard)');
});
