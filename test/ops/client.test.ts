// The typed client (src/client/generated/) is what the generator makes of the OpenAPI document the routes serve
// today: regenerated here the way `npm run client` does, file for file. A route or schema changed without
// `npm run client` fails this test; so does a generated file edited by hand.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { filesUnder, GENERATED, generateClient } from '../../scripts/client.ts';
import { startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('client');
});
after(() => database.drop());

test('the committed client is the one generated from the OpenAPI document the routes serve', async (t) => {
  const { app } = await startApp(t, database.url);
  const document = (await app.inject({ url: '/docs/json' })).json<Record<string, unknown>>();
  const outDir = mkdtempSync(join(tmpdir(), 'client-test-'));
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  await generateClient(document, outDir);

  const files = filesUnder(outDir);
  assert.ok(files.includes('sdk.gen.ts') && files.includes('types.gen.ts'), `generated: ${files.join(', ')}`);
  assert.deepEqual(filesUnder(GENERATED), files, 'the same files: run `npm run client`');
  for (const file of files) {
    const committed = readFileSync(join(GENERATED, file), 'utf8');
    assert.ok(
      committed === readFileSync(join(outDir, file), 'utf8'),
      `src/client/generated/${file} is out of date: run \`npm run client\``,
    );
  }
});
