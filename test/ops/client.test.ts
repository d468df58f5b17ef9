// The typed client (src/client/generated/) is what the generator makes of the OpenAPI document the routes serve
// today: regenerated here the way `npm run client` does, file for file. A route or schema changed without
// `npm run client` fails this test; so does a generated file edited by hand. And the client, against the
// service on a real port, answers data and throws the API's coded errors.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { filesUnder, GENERATED, generateClient } from '../../scripts/client.ts';
import { shortenerClient, ShortenerError } from '../../src/client/client.ts';
import * as api from '../../src/client/operations.ts';
import { startApp } from '../helpers/app.ts';
import { servedApp } from '../helpers/compat.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { keysWith } from '../helpers/workspaces.ts';

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

test('the client answers data, throws the API’s coded errors as ShortenerError, and leaves an abort an abort', async (t) => {
  const { app, base } = await servedApp(t, database.url);
  const { admin } = await keysWith(database.url, { admin: 'admin' });
  const client = shortenerClient({ baseUrl: base, key: admin.secret });

  const { data: made } = await api.postLinks({ client, throwOnError: true, body: { url: 'https://example.com/client' } });
  const { data: read } = await api.getLinksByCode({ client, throwOnError: true, path: { code: made.code } });
  assert.equal(read.url, 'https://example.com/client');

  const invalid = await thrown(api.postLinks({ client, throwOnError: true, body: { url: 'ftp://example.com' } }));
  assert.deepEqual([invalid.status, invalid.code], [400, 'URL_SCHEME_NOT_ALLOWED']);
  const missing = await thrown(api.getLinksByCode({ client, throwOnError: true, path: { code: 'nothere' } }));
  assert.deepEqual([missing.status, missing.code], [404, 'LINK_NOT_FOUND']);
  const wrongKey = shortenerClient({ baseUrl: base, key: 'sk_wrong' });
  const refused = await thrown(api.getLinks({ client: wrongKey, throwOnError: true }));
  assert.deepEqual([refused.status, refused.code], [401, 'API_KEY_INVALID']);
  assert.ok(!refused.message.includes('sk_wrong'), refused.message);
  // A key pasted with a line break, or a URL with a password: refused before fetch, whose errors would quote them.
  const pasted = await thrown((async () => shortenerClient({ baseUrl: base, key: `${admin.secret}\nsk_next` }))());
  assert.deepEqual([pasted.status, pasted.code], [401, 'API_KEY_INVALID']);
  assert.ok(!pasted.message.includes(admin.secret), pasted.message);
  const withPassword = await thrown((async () => shortenerClient({ baseUrl: base.replace('//', '//user:hunter2@'), key: admin.secret }))());
  assert.deepEqual([withPassword.code, withPassword.message.includes('hunter2')], ['URL_CREDENTIALS_NOT_ALLOWED', false]);

  await app.close();
  const gone = await thrown(api.getLinks({ client, throwOnError: true }));
  assert.deepEqual([gone.status, gone.code], [0, 'NETWORK_ERROR']);

  // An answer whose head came and whose body never does, aborted in between: the caller's abort, not an error of 200.
  const stalled = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).flushHeaders());
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => stalled.close(() => resolve())).then(() => undefined));
  t.after(() => stalled.closeAllConnections());
  const stalledClient = shortenerClient({ baseUrl: `http://127.0.0.1:${(stalled.address() as AddressInfo).port}` });
  let headed!: () => void;
  const gotHead = new Promise<void>((resolve) => (headed = resolve));
  stalledClient.interceptors.response.use((response) => {
    headed();
    return response;
  });
  const abort = new AbortController();
  const answer = api.getLinks({ client: stalledClient, throwOnError: true, signal: abort.signal });
  await gotHead;
  abort.abort();
  await assert.rejects(answer, (error) => error instanceof DOMException && error.name === 'AbortError');
});

/** What a call threw, which must be a ShortenerError. */
async function thrown(call: Promise<unknown>): Promise<ShortenerError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof ShortenerError, `a ShortenerError, not ${String(error)}`);
    return error;
  }
  return assert.fail('the call succeeded');
}
