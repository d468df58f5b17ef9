// The link list of a workspace, one keyset page at a time, and its tags. Every way the list is
// read has an index of its own (migrations/0006_link_list.sql) and the planner picks among them,
// but for two shapes it cannot cost, planned here: a rare tag with another order or a search (its
// links first), and a search whose words nearly every link has (walked newest first, as a sample
// of the newest links says it is dense). Each shape, its index and its time on a million links:
// docs/performance.md#the-team-workspace-the-link-list-at-a-million-links-and-what-it-costs-the-rest.

import { LRUCache } from 'lru-cache';
import { containsPattern, TOTAL_MAX, type Cursor, type ListFilter, type ListRequest } from './list-query.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { recordAudit, type Actor } from '../audit/audit.ts';
import type { Queryable } from '../db/pool.ts';
import type { LinkRef } from '../core/link.ts';
import { trendsOf } from './list-trends.ts';
import { DETAILS_COLUMNS, DETAILS_JOINS, detailsOf, type DetailsRow, type LinkDetails } from './store.ts';
import type { LinkState } from '../core/link.ts';
import { withClicksUsed, type LimitCounts } from './clicks-used.ts';

export interface LinkPage {
  readonly links: LinkDetails[];
  /** Where the next page starts; undefined: this was the last. */
  readonly next: Cursor | undefined;
  /** How many links pass the filter, when asked: exact up to TOTAL_MAX, else TOTAL_MAX and `atLeast`. */
  readonly total?: { readonly count: number; readonly atLeast: boolean };
}

/** A filter as the store runs it: a search also matches the workspace's tags that start with it (withSearchedTags). */
type RunFilter = ListFilter & { readonly qTags?: readonly string[] };

/** Tags a search matches at most (the most used first), so that its condition stays one small array. */
export const SEARCHED_TAGS_MAX = 100;

/** The search's expression, exactly as the trigram index has it (in the database's collation: its case folding is the locale's). */
const SEARCHED = `((l.code || E'\\n' || l.url || E'\\n' || coalesce(l.title, '')) COLLATE "default")`;

/** WHERE conditions of `filter` on links l, their values appended to `values`. */
function conditions(filter: RunFilter, values: unknown[]): string[] {
  const where: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.q !== undefined) {
    const text = `${SEARCHED} ILIKE ${param(containsPattern(filter.q))}`;
    // Both sides have an index (trigrams, and the tags' GIN): Postgres ORs their bitmaps.
    const tags = filter.qTags ?? [];
    where.push(tags.length === 0 ? text : `(${text} OR l.tags && ${param(tags)}::text[])`);
  }
  if (filter.tag !== undefined) where.push(`l.tags @> ARRAY[${param(filter.tag)}::text]`);
  if (filter.creator !== undefined) where.push(`l.owner_key_id = ${param(filter.creator)}`);
  if (filter.domainId !== undefined) where.push(`l.domain_id = ${param(filter.domainId)}`);
  if (filter.state !== undefined) where.push(STATE_CONDITIONS[filter.state]);
  if (filter.broken === true) where.push(BROKEN);
  // Indexes of their own (migrations/0023_link_lifecycle.sql): the default list costs what it did before archives.
  if (filter.archived === 'exclude') where.push('l.archived_at IS NULL');
  else if (filter.archived === 'only') where.push('l.archived_at IS NOT NULL');
  return where;
}

const UNBLOCKED = "NOT l.disabled AND l.safety IS DISTINCT FROM 'blocked'";
const LIVE = `${UNBLOCKED} AND (l.expires_at IS NULL OR l.expires_at > now())`;
const STARTED = '(l.starts_at IS NULL OR l.starts_at <= now())';
/**
 * Its click limit used up, as counted in link_click_limits (links/click-limits.ts; with Redis,
 * written there when a limit is reached: webhooks/delivery-store.ts): one probe of that table's
 * key. Its code is in the database's collation, links' in "C": compared in the former, or the
 * probe could not use the key's code (it read every row of the domain). The links with a limit
 * have an index of their own (migrations/0020_link_starts.sql). Costs: docs/api.md#link-states.
 */
const REACHED = `EXISTS (SELECT 1 FROM link_click_limits c WHERE c.domain_id = l.domain_id AND c.code = (l.code COLLATE "default")
  AND c.used >= (l.options->>'clickLimit')::bigint)`;

/** Its target called broken by the probes (health/store.ts): a probe of the small index of broken links (migrations/0022_target_health.sql). */
const BROKEN = 'EXISTS (SELECT 1 FROM link_health h WHERE h.domain_id = l.domain_id AND h.code = l.code AND h.broken)';

/** Each state's condition on links l, by the precedence of core/link.ts linkState. */
const STATE_CONDITIONS: Record<LinkState, string> = {
  disabled: 'l.disabled',
  // The links a blocklist acted on have an index of their own (migrations/0021_link_safety.sql).
  blocked: "NOT l.disabled AND l.safety = 'blocked'",
  expired: `${UNBLOCKED} AND l.expires_at IS NOT NULL AND l.expires_at <= now()`,
  limit_reached: `${LIVE} AND l.options ? 'clickLimit' AND ${REACHED}`,
  scheduled: `${LIVE} AND l.starts_at IS NOT NULL AND l.starts_at > now() AND NOT ${REACHED}`,
  flagged: `${LIVE} AND l.safety = 'flagged' AND ${STARTED} AND NOT ${REACHED}`,
  active: `${LIVE} AND l.safety IS NULL AND ${STARTED} AND NOT ${REACHED}`,
};

/**
 * A tag that few links have (workspace_tags counts them exactly) is read first, by the tags'
 * index, and only its links are ordered: walking the clicks index would read link after link,
 * each a random page of the table, to find the few with the tag (125 ms in Postgres for a tag of
 * 3,176 links at a million, pages from the OS cache, against 13–23 ms tag first; PostgreSQL 15 with
 * its defaults, 2026-12-02), and a search among them would test the words on every link newer
 * than the last one shown. Newest first with a rare tag alone needs none of this: that walk reads
 * the table in the order it was written, and the planner takes it.
 */
export const TAG_FIRST_MAX = 5000;

/**
 * The newest links of a workspace whose text a search is tried on (lower-cased), kept a minute:
 * the share of them that a search matches tells how far the newest-first walk would go to fill a
 * page. Workspaces with fewer links are not sampled: every plan is cheap there.
 */
export const SAMPLE_SIZE = 10_000;
const SAMPLE_TTL_MS = 60_000;
/** Strings of the samples kept, in UTF-16 code units (16 MB: samples of six workspaces of long URLs). */
const SAMPLES_MAX_UNITS = 8 * 2 ** 20;

/**
 * The most links a search walks newest first (the walk stops at a full page); about 35 ms of
 * Postgres at 1.4 µs a link (11,108 links walked in 15 ms for a page of a URL fragment). A search
 * whose matches are denser than a page in this many links is walked: the trigram index would read
 * a posting list for each trigram of the words, long ones for trigrams that nearly every link has
 * (a host name, "https"): 80–108 ms in Postgres for that fragment at a million links, against
 * 15–22 ms walked (load/run.ts --scenario list, PostgreSQL 15 with its defaults, 2026-12-02).
 * Rarer matches take the index.
 */
export const WALK_MAX = 25_000;

/** How each page was planned, counted (tests read them). */
export interface ListPlans {
  /** The planner's choice among the indexes. */
  planner: number;
  /** The links of a rare tag first. */
  tagFirst: number;
  /** A search walked newest first, and a page found within WALK_MAX links. */
  walked: number;
  /** A walk that found less than a page: the planner's query answered instead. */
  walkedShort: number;
}

/**
 * The link lists of the workspaces, read through `db`: each page with the plan its filters
 * need (see above), with a sample of each big workspace's newest links to plan its searches.
 */
export class LinkLists {
  readonly plans: ListPlans = { planner: 0, tagFirst: 0, walked: 0, walkedShort: 0 };
  readonly #db: Queryable;
  readonly #breaker: Pick<DbBreaker, 'run'>;
  readonly #samples: LRUCache<number, string[]>;
  readonly #counts: LimitCounts;

  /**
   * `db` and `breaker`: the list's own pool and breaker (DB_LIST_POOL_MAX), apart from those of
   * redirects and writes; `counts`: where the redirects of links with a click limit are counted.
   */
  constructor(db: Queryable, breaker: Pick<DbBreaker, 'run'>, counts: LimitCounts) {
    this.#db = db;
    this.#breaker = breaker;
    this.#counts = counts;
    this.#samples = new LRUCache<number, string[]>({
      maxSize: SAMPLES_MAX_UNITS,
      sizeCalculation: (texts) =>
        Math.max(
          1,
          texts.reduce((units, text) => units + text.length, 0),
        ),
      ttl: SAMPLE_TTL_MS,
      fetchMethod: (workspaceId) => newestTexts(db, workspaceId),
    });
  }

  /** One page of the workspace's links that pass `request.filter`, in `request.sort` order; `counted`: with their total. */
  async page(workspaceId: number, request: ListRequest, counted = false): Promise<LinkPage> {
    const found = await this.#breaker.run(async () => {
      const filter = await withSearchedTags(this.#db, workspaceId, request.filter);
      const listed = await this.#page(workspaceId, { ...request, filter });
      return counted ? { ...listed, total: await countLinks(this.#db, workspaceId, filter) } : listed;
    });
    return { ...found, links: await withClicksUsed(found.links, this.#counts) };
  }

  /** The trends of a page's links (list-trends.ts), in one statement. */
  trends(links: readonly LinkRef[]): Promise<Map<string, number[]>> {
    return this.#breaker.run(() => trendsOf(this.#db, links));
  }

  /** Records an export of the workspace's links (links.export in the audit log), with the filter it asked for. */
  recordExport(actor: Actor, workspaceId: number, filter: Readonly<Record<string, string>>): Promise<void> {
    return this.#breaker.run(() =>
      recordAudit(this.#db, actor, { workspaceId, action: 'links.export', targetType: 'links', targetId: null, after: filter }),
    );
  }

  /** The workspace's tags in use, most used first (at most TAGS_LISTED_MAX). */
  tags(workspaceId: number): Promise<{ tag: string; links: number }[]> {
    return this.#breaker.run(() => listTags(this.#db, workspaceId));
  }

  /**
   * The workspace's tags in use, most used first (at most TAGS_LISTED_MAX), each with its links'
   * clicks by people and by bots as of the last flush: one statement over the workspace's tagged links.
   */
  tagTotals(workspaceId: number): Promise<{ tag: string; links: number; clicks: number; botClicks: number }[]> {
    return this.#breaker.run(async () => {
      const { rows } = await this.#db.query<{ tag: string; links: string; clicks: string; bot_clicks: string }>(
        `SELECT tag, count(*) AS links, coalesce(sum(t.clicks), 0) AS clicks, coalesce(sum(t.bot_clicks), 0) AS bot_clicks
           FROM links l CROSS JOIN LATERAL unnest(l.tags) AS tag
           LEFT JOIN link_totals t ON t.domain_id = l.domain_id AND t.code = l.code
          WHERE l.workspace_id = $1 AND NOT l.deleted AND cardinality(l.tags) > 0
          GROUP BY tag ORDER BY links DESC, tag LIMIT ${TAGS_LISTED_MAX}`,
        [workspaceId],
      );
      return rows.map((row) => ({ tag: row.tag, links: Number(row.links), clicks: Number(row.clicks), botClicks: Number(row.bot_clicks) }));
    });
  }

  async #page(workspaceId: number, request: ListRequest & { filter: RunFilter }): Promise<LinkPage> {
    const { tag, q } = request.filter;
    if (
      tag !== undefined &&
      (request.sort === 'clicks' || q !== undefined) &&
      (await tagCount(this.#db, workspaceId, tag)) <= TAG_FIRST_MAX
    ) {
      this.plans.tagFirst++;
      return page(this.#db, workspaceId, request, 'tag first');
    }
    if (q !== undefined && request.sort === 'created' && onlySearch(request.filter) && (await this.#dense(workspaceId, q, request.limit))) {
      const walked = await page(this.#db, workspaceId, request, 'walk');
      if (walked.next !== undefined) {
        this.plans.walked++;
        return walked;
      }
      this.plans.walkedShort++;
    } else this.plans.planner++;
    return page(this.#db, workspaceId, request, 'planner');
  }

  /** Whether `q` matches more than a page in WALK_MAX of the workspace's newest links, by its sample. */
  async #dense(workspaceId: number, q: string, limit: number): Promise<boolean> {
    const texts = (await this.#samples.fetch(workspaceId)) ?? [];
    if (texts.length < SAMPLE_SIZE) return false;
    const needle = q.toLowerCase();
    let hits = 0;
    for (const text of texts) if (text.includes(needle)) hits++;
    return hits * WALK_MAX >= (limit + 1) * texts.length;
  }
}

/** `filter` with the tags its search matches: the workspace's tags that start with it, without case (by their counts' rows). */
async function withSearchedTags(db: Queryable, workspaceId: number, filter: ListFilter): Promise<RunFilter> {
  if (filter.q === undefined) return filter;
  const { rows } = await db.query<{ tag: string }>(
    `SELECT tag FROM workspace_tags WHERE workspace_id = $1 AND links > 0 AND starts_with(lower(tag), lower($2))
     ORDER BY links DESC, tag LIMIT ${SEARCHED_TAGS_MAX}`,
    [workspaceId, filter.q],
  );
  return rows.length === 0 ? filter : { ...filter, qTags: rows.map((row) => row.tag) };
}

/** How many links pass `filter`, reading at most TOTAL_MAX + 1 of them (from the index the page's filter would use). */
async function countLinks(db: Queryable, workspaceId: number, filter: RunFilter): Promise<{ count: number; atLeast: boolean }> {
  const values: unknown[] = [workspaceId];
  const where = ['l.workspace_id = $1', 'NOT l.deleted', ...conditions(filter, values)].join(' AND ');
  const { rows } = await db.query<{ count: string }>(
    `SELECT count(*) AS count FROM (SELECT 1 FROM links l WHERE ${where} LIMIT ${TOTAL_MAX + 1}) AS counted`,
    values,
  );
  const count = Number(rows[0]?.count ?? 0);
  return count > TOTAL_MAX ? { count: TOTAL_MAX, atLeast: true } : { count, atLeast: false };
}

const onlySearch = (filter: ListFilter) =>
  filter.tag === undefined &&
  filter.state === undefined &&
  filter.creator === undefined &&
  filter.domainId === undefined &&
  filter.broken === undefined;

async function newestTexts(db: Queryable, workspaceId: number): Promise<string[]> {
  const { rows } = await db.query<{ text: string }>(
    `SELECT lower(${SEARCHED}) AS text FROM links l WHERE l.workspace_id = $1 AND NOT l.deleted
     ORDER BY l.created_at DESC, l.code DESC LIMIT ${SAMPLE_SIZE}`,
    [workspaceId],
  );
  return rows.map((row) => row.text);
}

async function tagCount(db: Queryable, workspaceId: number, tag: string): Promise<number> {
  const { rows } = await db.query<{ links: string }>('SELECT links FROM workspace_tags WHERE workspace_id = $1 AND tag = $2', [
    workspaceId,
    tag,
  ]);
  return Number(rows[0]?.links ?? 0);
}

/**
 * How a page is read. 'planner': one statement, the planner picks the indexes. 'tag first': the
 * tag's links are read first (a materialised CTE, which the planner cannot fold back in), then
 * filtered and ordered. 'walk': the next WALK_MAX links newest first (or fewer), the search
 * tested on them in that order; a full page from it is the page, else the planner's answers.
 */
export type Plan = 'planner' | 'tag first' | 'walk';

/** One page, read as `plan` says (exported for the load suite, which explains each plan). */
export async function page(
  db: Queryable,
  workspaceId: number,
  request: ListRequest & { filter: RunFilter },
  plan: Plan,
): Promise<LinkPage> {
  const values: unknown[] = [workspaceId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const { after } = request;
  const byClicks = request.sort === 'clicks';
  const keyset =
    after === undefined
      ? []
      : byClicks
        ? [`(t.clicks, t.code) < (${param(after.value)}::bigint, ${param(after.code)})`]
        : [`(l.created_at, l.code) < (${param(after.value)}::timestamptz, ${param(after.code)})`];
  const own = ['l.workspace_id = $1', 'NOT l.deleted'];
  const order = byClicks ? 't.clicks DESC, t.code DESC' : 'l.created_at DESC, l.code DESC';
  let source = 'links l';
  let prefix = '';
  let where: string[] = [];
  if (plan === 'walk') {
    // The keyset and every other filter in the walk; the search on its links, in order.
    const { q, qTags, ...rest } = request.filter;
    const walk = [...own, ...conditions(rest, values), ...keyset].join(' AND ');
    const search = conditions(q === undefined ? {} : { q, ...(qTags === undefined ? {} : { qTags }) }, values).join(' AND ');
    source = `(SELECT * FROM (SELECT * FROM links l WHERE ${walk} ORDER BY ${order} LIMIT ${WALK_MAX}) l
               WHERE ${search} ORDER BY ${order} LIMIT ${param(request.limit + 1)}) l`;
  } else if (plan === 'tag first') {
    const tagged = [...own, `l.tags @> ARRAY[${param(request.filter.tag)}::text]`, ...conditions(request.filter, values)].join(' AND ');
    if (byClicks) {
      // The tagged links' codes that pass, their totals, the page of them; then their details.
      prefix = `WITH tagged AS MATERIALIZED (SELECT l.domain_id, l.code FROM links l WHERE ${tagged})\n`;
      const totals = ['t.workspace_id = $1', ...keyset].join(' AND ');
      source = `(SELECT t.* FROM tagged g JOIN link_totals t ON t.domain_id = g.domain_id AND t.code = g.code WHERE ${totals}
                 ORDER BY ${order} LIMIT ${param(request.limit + 1)}) t JOIN links l ON l.domain_id = t.domain_id AND l.code = t.code`;
    } else {
      // Newest first, the page is cut before the totals are joined to it.
      prefix = `WITH tagged AS MATERIALIZED (SELECT * FROM links l WHERE ${tagged})\n`;
      const afterCursor = keyset.length === 0 ? '' : `WHERE ${keyset.join(' AND ')}`;
      source = `(SELECT * FROM tagged l ${afterCursor} ORDER BY ${order} LIMIT ${param(request.limit + 1)}) l`;
    }
  } else where = [...own, ...conditions(request.filter, values), ...keyset];
  let from = `${source} LEFT JOIN link_totals t ON t.domain_id = l.domain_id AND t.code = l.code`;
  if (plan === 'tag first' && byClicks) from = source;
  else if (byClicks) {
    from = `link_totals t JOIN ${source} ON l.domain_id = t.domain_id AND l.code = t.code`;
    where.push('t.workspace_id = $1');
  }
  const { rows } = await db.query<DetailsRow & { sort_key: string }>(
    `${prefix}SELECT ${DETAILS_COLUMNS}, ${byClicks ? 't.clicks::text' : 'l.created_at::text'} AS sort_key
     FROM ${from} ${DETAILS_JOINS}
     ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
     ORDER BY ${order}
     LIMIT ${param(request.limit + 1)}`,
    values,
  );
  const more = rows.length > request.limit;
  const shown = more ? rows.slice(0, request.limit) : rows;
  const last = shown.at(-1);
  const next: Cursor | undefined = more && last !== undefined ? { sort: request.sort, value: last.sort_key, code: last.code } : undefined;
  return { links: shown.map(detailsOf), next };
}

export const TAGS_LISTED_MAX = 1000;

/** The workspace's tags in use, most used first (at most TAGS_LISTED_MAX): counted by triggers, never here. */
export async function listTags(db: Queryable, workspaceId: number): Promise<{ tag: string; links: number }[]> {
  const { rows } = await db.query<{ tag: string; links: string }>(
    `SELECT tag, links FROM workspace_tags WHERE workspace_id = $1 AND links > 0 ORDER BY links DESC, tag LIMIT ${TAGS_LISTED_MAX}`,
    [workspaceId],
  );
  return rows.map((row) => ({ tag: row.tag, links: Number(row.links) }));
}
