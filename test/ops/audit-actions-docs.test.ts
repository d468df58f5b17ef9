// The audit log's actions as docs/audit.md lists them, the dashboard's filter offers them, and the
// code records them are one list: a new action is documented and can be filtered on.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AUDIT_ACTIONS } from '../../web/src/people/audit/audit-filters.ts';

const root = new URL('../../', import.meta.url).pathname;

/** Every `action: '…'` written in src/ (recorded directly, or through a helper that names it). */
function recordedActions(): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/\baction: '([a-z]+\.[a-z-]+)'/g)) found.add(match[1] as string);
      }
    }
  };
  walk(join(root, 'src'));
  return found;
}

test("docs/audit.md's actions are the dashboard filter's, and cover every action the code records", () => {
  const page = readFileSync(join(root, 'docs/audit.md'), 'utf8');
  const table = page.split('\n').filter((line) => /^\| `[a-z]+\.[a-z-]+`/.test(line));
  const documented = new Set(
    table.flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([a-z]+\.[a-z-]+)`/g)].map((m) => m[1] as string)),
  );
  assert.ok(documented.size >= 20, `the table lists ${documented.size} actions`);
  assert.deepEqual([...AUDIT_ACTIONS].sort(), [...documented].sort());
  const recorded = recordedActions();
  assert.ok(recorded.size >= 10, `found ${recorded.size} recorded actions`);
  for (const action of recorded) assert.ok(documented.has(action), `${action} is recorded but not documented`);
});
