// The README's configuration table is rendered from the declarations in src/config/config.ts.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { configTable } from '../../src/config/schema.ts';
import { SETTINGS } from '../../src/config/config.ts';
import { README, readmeTable } from '../../scripts/config-table.ts';

test("README.md's configuration table is the one src/config/config.ts declares", () => {
  assert.equal(
    readmeTable(readFileSync(README, 'utf8')),
    configTable(SETTINGS),
    'README.md and src/config/config.ts disagree on the configuration: run `npm run config:table`',
  );
});
