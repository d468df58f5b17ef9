// How a migration without a transaction is cut into statements (src/db/migrate.ts): at a ";" that
// ends a line, never inside a $$ body, so that a DO block runs whole as one statement.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitStatements } from '../../src/db/migrate.ts';

test('statements end at a ";" at the end of a line; comments go; a $$ body with its own ";" lines stays whole', () => {
  const sql = [
    '-- migrate: without a transaction',
    '-- a comment; with a semicolon;',
    'CREATE INDEX CONCURRENTLY IF NOT EXISTS a ON t (x);',
    '',
    'DO $$',
    'BEGIN',
    '  PERFORM 1;',
    '  IF true THEN',
    '    RETURN;',
    '  END IF;',
    'END;',
    '$$;',
    "SELECT 'x;y';",
  ].join('\n');
  assert.deepEqual(splitStatements(sql), [
    'CREATE INDEX CONCURRENTLY IF NOT EXISTS a ON t (x)',
    'DO $$\nBEGIN\n  PERFORM 1;\n  IF true THEN\n    RETURN;\n  END IF;\nEND;\n$$',
    "SELECT 'x;y'",
  ]);
});
