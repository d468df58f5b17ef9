// What a tag's stats view costs Postgres at its bound (TAG_LINKS_MAX links; LINKS=n for another
// count): each link with 30 days of rollups, a row for itself and 10 values of each of 7 dimensions
// per day, with small sketches; the reads of GET /stats?tag= timed three times
// (docs/api.md#click-analytics). Run: node load/tag-view-bench.ts (needs the tests' Postgres).
import pg from 'pg';
import { createTestDatabase } from '../test/helpers/db.ts';
import { readRollups } from '../src/analytics/stats-store.ts';
import { readTagLinks, readTopLinksOf } from '../src/analytics/link-sets.ts';
import { TAG_LINKS_MAX } from '../src/analytics/stats.ts';

const db = await createTestDatabase('tagcost');
const pool = new pg.Pool({ connectionString: db.url, max: 2 });
try {
  const links = Number(process.env.LINKS ?? TAG_LINKS_MAX);
  await pool.query(
    `INSERT INTO links (code, url, tags) SELECT 'c' || lpad(i::text, 6, '0'), 'https://example.com/' || i, ARRAY['big'] FROM generate_series(1, $1) AS i`,
    [links],
  );
  await pool.query(`SELECT analytics_partitions(current_date - 40, NULL, 2)`);
  await pool.query(
    `
    INSERT INTO click_rollups (domain_id, code, day, dimension, value, clicks, bot_clicks, visitors)
    SELECT 0, 'c' || lpad(i::text, 6, '0'), current_date - d, dim, CASE WHEN dim = 0 THEN '' ELSE 'v' || v END, 5, 1,
           ARRAY[((i * 31 + d * 7 + v) % 4096) * 64 + 1, ((i * 17 + d + v * 3) % 4096) * 64 + 2]
    FROM generate_series(1, $1) AS i, generate_series(0, 29) AS d, generate_series(0, 7) AS dim, generate_series(1, 10) AS v
    WHERE dim > 0 OR v = 1`,
    [links],
  );
  await pool.query('ANALYZE');
  const { rows } = await pool.query(`SELECT count(*) FROM click_rollups`);
  console.log('rollup rows', rows[0].count);
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 29 * 86400000).toISOString().slice(0, 10);
  for (let run = 0; run < 3; run++) {
    let t = performance.now();
    const tagged = await readTagLinks(pool, 1, 'big', TAG_LINKS_MAX);
    const a = performance.now() - t;
    t = performance.now();
    const stats = await readRollups(pool, { links: tagged.links }, { from, to: today }, [1, 2, 4, 5, 6, 7, 8], 10);
    const b = performance.now() - t;
    t = performance.now();
    await readRollups(pool, { links: tagged.links }, { from, to: today }, [], 10, { dimension: 2, value: 'v3' });
    const c = performance.now() - t;
    t = performance.now();
    await readTopLinksOf(pool, tagged.links, { from, to: today }, { dimension: 2, value: 'v3' }, 10);
    const d = performance.now() - t;
    console.log(
      `run ${run}: tag links ${a.toFixed(0)} ms, rollups (7 dims) ${b.toFixed(0)} ms, a value's days ${c.toFixed(0)} ms, top links of a value ${d.toFixed(0)} ms; clicks ${stats.range.clicks}`,
    );
  }
} finally {
  await pool.end();
  await db.drop();
}
