// The list scenario's requests: each way the dashboard reads a workspace's link list (a "shape":
// first and deep pages in both orders, every filter, the combinations, the tags), the search
// terms and filter values chosen from the seeded data (load/list-seed.ts) so that there are common
// and rare hits, the export of the whole list, and EXPLAIN (ANALYZE, BUFFERS) of the statement
// behind each shape, built by the service's own code (src/links/list-store.ts), not copied here.

import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { readListQuery, type ListRequest } from '../src/links/list-query.ts';
import { LinkLists, listTags, page as readPage, SAMPLE_SIZE } from '../src/links/list-store.ts';
import type { Queryable } from '../src/db/pool.ts';
import { withClient } from '../test/helpers/db.ts';
import { LIST_WORKSPACE_ID, type SeededList } from './list-seed.ts';
import { DOMAINS, NO_MATCH, SECTIONS, WORDS } from './list-words.ts';
import { cpuSeconds } from './proc.ts';
import type { ListExport, ListPlan } from './types.ts';

/** The dashboard's page size (web/src/api.ts). */
export const PAGE_SIZE = 25;
/** Deep pages: the list is followed this far by nextCursor, and the last DEEP_PAGES of it are measured. */
const FOLLOWED_PAGES = 30;
const DEEP_PAGES = 10;

export interface ListShape {
  readonly label: string;
  /** Request paths, cycled through (one or a few values of the same kind). */
  readonly paths: readonly string[];
}

const list = (params: Record<string, string>) => `/links?${new URLSearchParams({ limit: String(PAGE_SIZE), ...params }).toString()}`;
const each = (values: readonly string[], params: (value: string) => Record<string, string>) => values.map((v) => list(params(v)));

/** Values for the filters, from the seeded data. */
interface Terms {
  readonly popularTags: readonly string[];
  readonly rareTags: readonly string[];
  readonly rarePhrases: readonly string[];
  readonly codeFragments: readonly string[];
  readonly urlFragments: readonly string[];
}

/**
 * The shapes measured. `deep` holds the cursors of pages 21–30 of the list newest first and
 * most clicked first.
 */
export function listShapes(seeded: SeededList, terms: Terms, deep: { created: readonly string[]; clicks: readonly string[] }): ListShape[] {
  const common = WORDS.slice(0, 3);
  // Creators by how many links they made: the 3rd and the 10th of 20.
  const creators = [seeded.creators[2], seeded.creators[9]].filter((id) => id !== undefined).map(String);
  const { popularTags, rareTags, rarePhrases, codeFragments, urlFragments } = terms;
  return [
    { label: 'newest, first page', paths: [list({})] },
    { label: `newest, pages ${FOLLOWED_PAGES - DEEP_PAGES + 1}–${FOLLOWED_PAGES}`, paths: each(deep.created, (cursor) => ({ cursor })) },
    { label: 'most clicked, first page', paths: [list({ sort: 'clicks' })] },
    {
      label: `most clicked, pages ${FOLLOWED_PAGES - DEEP_PAGES + 1}–${FOLLOWED_PAGES}`,
      paths: each(deep.clicks, (cursor) => ({ sort: 'clicks', cursor })),
    },
    { label: 'tag, popular', paths: each(popularTags, (tag) => ({ tag })) },
    { label: 'tag, rare', paths: each(rareTags, (tag) => ({ tag })) },
    { label: 'state=disabled', paths: [list({ state: 'disabled' })] },
    { label: 'state=expired', paths: [list({ state: 'expired' })] },
    { label: 'state=active', paths: [list({ state: 'active' })] },
    { label: 'creator', paths: each(creators, (creator) => ({ creator })) },
    { label: 'q, common word', paths: each(common, (q) => ({ q })) },
    { label: 'q, rare phrase', paths: each(rarePhrases, (q) => ({ q })) },
    { label: 'q, code fragment', paths: each(codeFragments, (q) => ({ q })) },
    { label: 'q, URL fragment', paths: each(urlFragments, (q) => ({ q })) },
    { label: 'q, no match', paths: each(NO_MATCH, (q) => ({ q })) },
    { label: 'q common + tag popular', paths: each(common, (q) => ({ q, tag: popularTags[0] ?? '' })) },
    { label: 'q common + tag rare', paths: each(common, (q) => ({ q, tag: rareTags[0] ?? '' })) },
    { label: 'tag popular + most clicked', paths: each(popularTags, (tag) => ({ tag, sort: 'clicks' })) },
    { label: 'tag rare + most clicked', paths: each(rareTags, (tag) => ({ tag, sort: 'clicks' })) },
    { label: 'creator + most clicked', paths: each(creators, (creator) => ({ creator, sort: 'clicks' })) },
    { label: 'state=expired + most clicked', paths: [list({ state: 'expired', sort: 'clicks' })] },
    { label: 'GET /tags', paths: ['/tags'] },
  ].filter((shape) => shape.paths.length > 0);
}

/**
 * Filter values from the data: the two most used tags and the three least used; the three rarest
 * pairs of adjacent words in a sample of titles (each matches at least its own link); code
 * prefixes that match about 111 codes whatever the size; host + first path segment of middling
 * frequency.
 */
export async function chooseTerms(databaseUrl: string, seeded: SeededList): Promise<Terms> {
  return withClient(databaseUrl, async (client) => {
    const tags = async (order: 'ASC' | 'DESC', n: number) =>
      (
        await client.query<{ tag: string }>(
          `SELECT tag FROM workspace_tags WHERE workspace_id = $1 AND links > 0 ORDER BY links ${order}, tag LIMIT $2`,
          [LIST_WORKSPACE_ID, n],
        )
      ).rows.map((row) => row.tag);
    const sample = Array.from({ length: 2000 }, (_, k) => `l-${1 + Math.floor((k * seeded.links) / 2000)}`);
    const titles = (await client.query<{ title: string }>('SELECT title FROM links WHERE code = ANY($1) AND title IS NOT NULL', [sample]))
      .rows;
    const rank = (word: string) => WORDS.indexOf(word.toLowerCase());
    const pairs = new Map<string, number>();
    for (const { title } of titles) {
      const words = title.split(' ');
      for (let i = 1; i < words.length; i++) {
        const [a = '', b = ''] = [words[i - 1], words[i]];
        pairs.set(`${a} ${b}`.toLowerCase(), Math.min(rank(a), rank(b)));
      }
    }
    const rarePhrases = [...pairs.entries()]
      .sort(([, x], [, y]) => y - x)
      .slice(0, 3)
      .map(([phrase]) => phrase);
    const digits = String(seeded.links).length;
    const codeFragments = [0.37, 0.61, 0.83].map(
      (f) => `l-${String(Math.max(1, Math.floor(f * seeded.links))).slice(0, Math.max(2, digits - 3))}`,
    );
    const urlFragments = [4, 5, 6].map((r) => `${DOMAINS[r] ?? ''}/${SECTIONS[r] ?? ''}`);
    return { popularTags: await tags('DESC', 2), rareTags: await tags('ASC', 3), rarePhrases, codeFragments, urlFragments };
  });
}

/** Follows nextCursor through FOLLOWED_PAGES pages; the cursors that fetch the last DEEP_PAGES of them. */
export async function deepCursors(base: string, secret: string, sort: 'created' | 'clicks'): Promise<string[]> {
  const cursors: string[] = [];
  let cursor: string | null = null;
  for (let page = 1; page < FOLLOWED_PAGES; page++) {
    const params: Record<string, string> = { sort, ...(cursor === null ? {} : { cursor }) };
    const res = await fetch(`${base}${list(params)}`, { headers: { authorization: `Bearer ${secret}` } });
    if (res.status !== 200) throw new Error(`GET /links (sort=${sort}, page ${page}) answered ${res.status}: ${await res.text()}`);
    cursor = ((await res.json()) as { nextCursor: string | null }).nextCursor;
    if (cursor === null) break;
    if (page >= FOLLOWED_PAGES - DEEP_PAGES) cursors.push(cursor);
  }
  if (cursors.length === 0) throw new Error(`GET /links (sort=${sort}): fewer than ${FOLLOWED_PAGES - DEEP_PAGES + 1} pages`);
  return cursors;
}

/**
 * Waits (up to 30 s) until the list answers again (GET /tags, through the list's own pool and
 * breaker, which GET /readyz does not report): a shape slow enough to open the list's breaker
 * (statement timeouts count against it) must not make the next shape's requests fail fast.
 * Returns how long it waited, in ms: 0 when the list answered at once.
 */
export async function listAnswers(base: string, secret: string): Promise<number> {
  const t0 = performance.now();
  for (let polls = 0; ; polls++) {
    const res = await fetch(`${base}/tags`, { headers: { authorization: `Bearer ${secret}` }, signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    const waited = performance.now() - t0;
    if (res.status !== 503 || waited > 30_000) return polls === 0 ? 0 : Math.round(waited);
    await sleep(250);
  }
}

/** GET /links/export.csv of the whole workspace, once: time to its head and first byte, rows per second. */
export async function exportAll(base: string, secret: string, serverPid: number | undefined): Promise<ListExport> {
  const cpuBefore = cpuSeconds(serverPid);
  const t0 = performance.now();
  const res = await fetch(`${base}/links/export.csv`, { headers: { authorization: `Bearer ${secret}` } });
  const headMs = performance.now() - t0;
  if (res.status !== 200 || res.body === null) throw new Error(`GET /links/export.csv answered ${res.status}: ${await res.text()}`);
  let firstByteMs: number | undefined;
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    firstByteMs ??= performance.now() - t0;
    bytes += chunk.byteLength;
    for (const byte of chunk) if (byte === 0x0a) lines++;
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpuAfter = cpuSeconds(serverPid);
  // The seeded titles and tags hold no line break: one line per row, and the header.
  const rows = lines - 1;
  const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
  return {
    headMs: round(headMs, 1),
    firstByteMs: round(firstByteMs ?? headMs, 1),
    seconds: round(seconds, 2),
    rows,
    bytes,
    rowsPerSecond: Math.round(rows / seconds),
    serverCpuMsPer1000Rows: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1e6) / Math.max(1, rows), 2),
  };
}

interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/** A Queryable that only records what it is asked and answers no rows. */
function recorder(into: Statement[]): Queryable {
  return {
    async query(text: string, values: unknown[] = []) {
      into.push({ text, values });
      return { rows: [], rowCount: 0, command: 'SELECT', oid: 0, fields: [] };
    },
  };
}

/**
 * The statements that the service runs for `path`, built and run by its own code (src/links/list-store.ts)
 * on `client`, in order: a page's plan may take several (a tag's count, a workspace's sample, a walk
 * and the planner's statement after a short walk).
 */
async function statementsOf(client: pg.Client, path: string): Promise<Statement[]> {
  const statements: Statement[] = [];
  const db: Queryable = {
    async query(text: string, values: unknown[] = []) {
      statements.push({ text, values });
      return client.query(text, values);
    },
  };
  const url = new URL(path, 'http://list.invalid');
  if (url.pathname === '/tags') await listTags(db, LIST_WORKSPACE_ID);
  else if (url.pathname === '/links')
    await new LinkLists(db, { run: (work) => work() }, { used: async () => new Map() }).page(LIST_WORKSPACE_ID, requestOf(path));
  return statements;
}

function requestOf(path: string): ListRequest {
  const verdict = readListQuery(Object.fromEntries(new URL(path, 'http://list.invalid').searchParams));
  if (!verdict.ok) throw new Error(`${path}: ${verdict.message}`);
  return verdict.request;
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements behind `path`, warm: each has just been run by the
 * service's own code (statementsOf); a workspace's sample is left out, as the service keeps it a
 * minute. The indexes and sequential scans they used, and how many rows the filter matches.
 */
export async function explainPath(databaseUrl: string, path: string): Promise<ListPlan | null> {
  return withClient(databaseUrl, async (client) => {
    const statements = (await statementsOf(client, path)).filter((statement) => !statement.text.includes(`LIMIT ${SAMPLE_SIZE}`));
    if (statements.length === 0) return null;
    const texts: string[] = [];
    let executionMs = 0;
    for (const statement of statements) {
      const text = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
      texts.push(text);
      executionMs += Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1] ?? Number.NaN);
    }
    const text = texts.join('\n\n');
    const scans = [...text.matchAll(/(?:Index(?: Only)? Scan(?: Backward)? using|Bitmap Index Scan on|Seq Scan on) (\w+)/g)].map(
      ([node, name]) => (node.startsWith('Seq') ? `Seq Scan on ${name ?? ''}` : (name ?? '')),
    );
    // What the filter matches, counted on the planner's statement.
    const planned: Statement[] = [];
    if (new URL(path, 'http://list.invalid').pathname === '/links')
      await readPage(recorder(planned), LIST_WORKSPACE_ID, requestOf(path), 'planner');
    const counted = planned[0] === undefined ? null : await matches(client, planned[0]);
    return { path, indexes: [...new Set(scans)], executionMs: Math.round(executionMs * 1000) / 1000, matches: counted, text };
  });
}

/**
 * Rows that the statement's WHERE selects (from its keyset position on): the statement counted
 * instead of ordered and cut. Its LIMIT is its last parameter.
 */
async function matches(client: pg.Client, statement: Statement): Promise<number | null> {
  const counted = statement.text.replace(/^\s*SELECT[\s\S]*?\bFROM\b/, 'SELECT count(*) AS n FROM').replace(/\s+ORDER BY[\s\S]*$/, '');
  if (!/\bLIMIT \$\d+$/.test(statement.text)) return null;
  const { rows } = await client.query<{ n: string }>(counted, statement.values.slice(0, -1));
  return rows[0] === undefined ? null : Number(rows[0].n);
}
