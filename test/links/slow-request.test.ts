// SLOW_REQUEST_MS names requests that were slow, not the wait an alias's 201 takes on purpose
// (the code space's announcement delay, resolve/code-space.ts): such an alias is logged only if it
// was slow besides.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ACK_DELAY_MS } from '../../src/resolve/code-space.ts';
import { createLink, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { memoryLogger } from '../helpers/logs.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('slow_request');
});
after(() => database.drop());

const slowLines = (lines: { msg?: string }[]) => lines.filter((line) => line.msg === 'slow request');

test('an alias shaped like a generated code waits its delay without a "slow request" line; a slow request still gets one', async (t) => {
  const { log, lines } = memoryLogger('warn');
  const { app } = await startApp(t, database.url, {}, { log });
  const started = performance.now();
  const res = await createLink(app, { url: 'https://example.com/waited', alias: 'Abc1234' });
  assert.equal(res.status, 201);
  assert.ok(performance.now() - started >= ACK_DELAY_MS - 50, 'the alias was acknowledged without its delay: this test tests nothing');
  const bulk = await app.inject({
    method: 'POST',
    url: '/links/bulk',
    payload: { links: [{ url: 'https://example.com/b', alias: 'Xyz9876' }] },
  });
  assert.equal(bulk.statusCode, 200);
  assert.deepEqual(slowLines(lines), [], 'the deliberate wait was logged as slowness');

  // The same create on an app whose every request counts as slow: the line is there.
  const quick = memoryLogger('warn');
  const { app: strict } = await startApp(t, database.url, { SLOW_REQUEST_MS: '1' }, { log: quick.log });
  const plain = await createLink(strict, { url: 'https://example.com/plain' });
  assert.equal(plain.status, 201);
  assert.equal(slowLines(quick.lines).length, 1);
});
