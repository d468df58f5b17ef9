// docs/errors.md's table of error codes is the one src/errors.ts defines: every code, with its status.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERRORS } from '../../src/errors.ts';

test("docs/errors.md's error codes are src/errors.ts's, each with its status", () => {
  const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('## Every code'));
  const documented = [...section.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \|/gm)].map(([, status, code]) => `${code} ${status}`);
  assert.ok(documented.length > 10, 'no table of error codes found in docs/errors.md');
  const defined = Object.entries(ERRORS).map(([code, { status }]) => `${code} ${status}`);
  assert.deepEqual([...documented].sort(), [...defined].sort());
});
