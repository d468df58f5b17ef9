// How long a blocklist's new entry takes to act on the links it names (docs/performance.md#blocklist-sweeps):
// an app on a database of its own holds --named links under one domain and as many others under
// others; the entry is appended to its list file and the time is taken from the refresh that reads
// it to the moment every named link is marked and announced (Redis written, every instance told),
// then checked from Postgres and over a redirect. Each round uses a new entry and new links.
//
//   node load/blocklist-sweep.ts [--named 10000] [--rounds 3]
//
// Needs Postgres (DATABASE_URL, default the test one) and Redis (REDIS_URL, default local).

import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApiKey } from '../src/auth/api-keys.ts';
import { startApp, type Cleanup } from '../test/helpers/app.ts';
import { createTestDatabase, withClient } from '../test/helpers/db.ts';
import { deleteKeys, randomPrefix, SHARED_REDIS_URL } from '../test/helpers/redis.ts';

const { values } = parseArgs({ options: { named: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '3' } } });
const named = Number(values.named);
const rounds = Number(values.rounds);

const cleanups: (() => Promise<void>)[] = [];
const scope: Cleanup = { after: (fn) => cleanups.push(fn) };
const dir = mkdtempSync(join(tmpdir(), 'blocklist-sweep-'));
const list = join(dir, 'list.txt');
writeFileSync(list, 'unrelated.example\n');
const database = await createTestDatabase('blocklist_sweep');
const prefix = randomPrefix('blocklist-sweep');
try {
  const { app } = await startApp(scope, database.url, {
    BLOCKLISTS: `bench=domains:${list}`,
    REDIS_URL: SHARED_REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
  });
  const admin = { authorization: `Bearer ${(await createApiKey(app.db, { name: 'bench', role: 'admin' })).secret}` };
  const bulk = async (urls: string[]) => {
    for (let i = 0; i < urls.length; i += 1000) {
      const res = await app.inject({
        method: 'POST',
        url: '/links/bulk',
        headers: admin,
        payload: { links: urls.slice(i, i + 1000).map((url) => ({ url })) },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
  };
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const domain = `round${round}.example`;
    await bulk(Array.from({ length: named }, (_, i) => `https://s${i % 50}.${domain}/p/${i}`));
    await bulk(Array.from({ length: named }, (_, i) => `https://other${round}-${i % 50}.example/p/${i}`));
    const marked = app.linkSafety.marked;
    appendFileSync(list, `${domain}\n`);
    const started = performance.now();
    await app.blocklists.refresh();
    await app.linkSafety.run();
    const ms = performance.now() - started;
    times.push(ms);
    const { rows } = await withClient(database.url, (client) =>
      client.query<{ n: string }>(`SELECT count(*) AS n FROM links WHERE url LIKE $1 AND safety = 'blocked'`, [`%.${domain}/%`]),
    );
    assert.equal(Number(rows[0]?.n), named, 'every named link is blocked');
    assert.equal(app.linkSafety.marked - marked, named, 'and no other');
    process.stdout.write(
      `round ${round + 1}: ${named} links under ${domain} (of ${2 * named * (round + 1)}) blocked in ${Math.round(ms)} ms\n`,
    );
  }
  times.sort((a, b) => a - b);
  process.stdout.write(`median ${Math.round(times[Math.floor(times.length / 2)] ?? 0)} ms, worst ${Math.round(times.at(-1) ?? 0)} ms\n`);
} finally {
  for (const fn of cleanups.toReversed()) await fn();
  await deleteKeys(SHARED_REDIS_URL, prefix);
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
