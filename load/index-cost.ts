// What a create costs Postgres, and what a link costs its disk, index by index: the service's own
// batch INSERT (insertLinks, 500 links a statement as group commit writes them at 400 connections)
// into a database of its own (migrated, dropped at the end), with the link list's search index as
// shipped (GIN trigrams), without it, as a GiST trigram signature, and as GIN with fastupdate off.
// For each: the Postgres backend's CPU per link (its process read from /proc), the bytes of `links`
// per link with every index (after VACUUM), the search index's share, and three searches of the
// list's expression (a word every link has, a number, a code fragment). The links are the create
// scenario's (load/traffic.ts targetUrl: 80-byte URLs), with generated codes.
//
//   DATABASE_URL=postgres://… node load/index-cost.ts [--links 50000]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createCodeCodec } from '../src/core/codes.ts';
import { createPermutation } from '../src/core/permutation.ts';
import { insertLinks, type NewLink } from '../src/db/links.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { plainLink } from '../test/helpers/links.ts';
import { targetUrl } from './traffic.ts';

const BATCH = 500;
const DEFAULT_WORKSPACE_ID = 1;
/** The search's expression, as migrations/0006_link_list.sql indexes it. */
const SEARCHED = `((code || E'\\n' || url || E'\\n' || coalesce(title, '')) COLLATE "default")`;

const VARIANTS: readonly { label: string; setup: readonly string[] }[] = [
  { label: 'as shipped (GIN trigrams)', setup: [] },
  { label: 'no search index', setup: ['DROP INDEX links_list_search'] },
  {
    label: 'GiST trigram signatures (siglen 64)',
    setup: [`CREATE INDEX links_list_search ON links USING gist (${SEARCHED} gist_trgm_ops(siglen=64)) WHERE NOT deleted`],
  },
  {
    label: 'GIN trigrams, fastupdate off',
    setup: [
      'DROP INDEX links_list_search',
      `CREATE INDEX links_list_search ON links USING gin (${SEARCHED} gin_trgm_ops) WITH (fastupdate = off) WHERE NOT deleted`,
    ],
  },
];

const { values } = parseArgs({ options: { links: { type: 'string', default: '50000' } } });
const count = Number(values.links);
if (!Number.isInteger(count) || count < BATCH) throw new Error(`--links: a whole number of at least ${BATCH}`);

const codec = createCodeCodec(createPermutation('index-cost-code-secret', 7), 7);
const database = await createTestDatabase('index_cost');
const client = new pg.Client({ connectionString: database.url });
await client.connect();
try {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const backend = rows[0]?.pid ?? 0;
  let next = 0;
  for (const { label, setup } of VARIANTS) {
    await client.query('TRUNCATE links, link_totals CASCADE');
    for (const sql of setup) await client.query(sql);
    await client.query('VACUUM ANALYZE links');
    const cpuBefore = cpuTicks(backend);
    const startedAt = performance.now();
    for (let done = 0; done < count; done += BATCH) {
      const links = Array.from({ length: BATCH }, (_, i) => newLink(next + done + i));
      await insertLinks(client, links);
    }
    const wallUs = ((performance.now() - startedAt) * 1000) / count;
    const cpuUs = ((cpuTicks(backend) - cpuBefore) * 10_000) / count;
    await client.query('VACUUM ANALYZE links');
    const sizes = await client.query<{ total: string; search: string | null }>(
      `SELECT pg_total_relation_size('links') AS total, pg_relation_size(to_regclass('links_list_search')) AS search`,
    );
    const total = Number(sizes.rows[0]?.total ?? 0);
    const search = Number(sizes.rows[0]?.search ?? 0);
    console.log(
      `${label}: ${cpuUs.toFixed(1)} µs of Postgres CPU a link (${wallUs.toFixed(1)} µs of wall time); ` +
        `${Math.round(total / count)} B a link in links, ${Math.round(search / count)} B of it the search index`,
    );
    const fragment = codec.fromId(next + 777).slice(1, 6);
    for (const term of ['spring-sale', String(next + 1234).padStart(7, '0'), fragment]) {
      const ms: number[] = [];
      let found = 0;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const result = await client.query(
          `SELECT code FROM links WHERE NOT deleted AND ${SEARCHED} ILIKE $1 ORDER BY created_at DESC LIMIT 25`,
          [`%${term}%`],
        );
        ms.push(performance.now() - t);
        found = result.rowCount ?? 0;
      }
      console.log(`  search "${term}": ${found} links, median ${ms.sort((a, b) => a - b)[2]?.toFixed(1)} ms`);
    }
    next += count;
  }
} finally {
  await client.end();
  await database.drop();
}

function newLink(n: number): NewLink {
  return {
    ...plainLink(codec.fromId(n), targetUrl(n)),
    generated: true,
    workspaceId: DEFAULT_WORKSPACE_ID,
    ownerKeyId: null,
    title: null,
    tags: [],
    idempotency: undefined,
  };
}

/** User and system CPU of process `pid`, in clock ticks (1/100 s). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}
