// What links cost where the service keeps them besides its LRU, sized right after seeding, before
// any other scenario adds rows or keys: Postgres (and Redis), then one click on each of a sample of
// links and what its rows cost, then a busy day's clicks on the same links and what their rollups
// cost (load/storage.ts measures; load/report/describe.ts words it).
//
//   DATABASE_URL=postgres://… npm run load -- --scenario storage

import { setTimeout as sleep } from 'node:timers/promises';
import { withClient } from '../../test/helpers/db.ts';
import type { Context } from '../context.ts';
import { measure } from '../measure.ts';
import { describeStorage } from '../report/describe.ts';
import { ONLY_LOCAL, type OnItsOwn } from '../scenario.ts';
import { analyticsStorage, clicksStorage, clickTableSizes, linksStorage, redisStorage } from '../storage.ts';
import { notApplicable, quietRun } from '../targets.ts';
import { codePaths } from '../traffic.ts';
import type { AnalyticsStorage, RunResult } from '../types.ts';
import { clicking } from '../visitors.ts';

/**
 * Links clicked once before the storage figures, so that link_clicks_daily has rows to size
 * (CLICK_MAX_CODES: one flush takes them all).
 */
const CLICK_SAMPLE = 20_000;

/** Clicks on each of those links, in all, for the storage of a busy link's day of analytics. */
const BUSY_CLICKS = 20;

// Issue 39: a link's row in Postgres, every index of it included.
const BYTES_GOAL = 400;

export const storage: OnItsOwn = {
  name: 'storage',
  needs: ['service', 'processes', 'postgres', 'redis'],
  targets: [
    (runs) => {
      const name = `storage: a link ≤ ${BYTES_GOAL} B in Postgres, indexes included`;
      const figures = runs.find('storage')?.storage?.postgres;
      if (figures === undefined) return notApplicable(name, 'the storage run did not happen');
      const search = figures.indexBytesPerLinkByName.links_list_search;
      return {
        name,
        value: `${figures.bytesPerLink.toLocaleString('en-US')} B/link`,
        verdict: figures.bytesPerLink <= BYTES_GOAL ? 'PASS' : 'MISS',
        detail:
          `heap ${figures.heapBytesPerLink}, indexes ${figures.indexBytesPerLink}` +
          `${search === undefined ? '' : ` (the search's ${search})`}; with link_totals ${figures.allBytesPerLink}`,
      };
    },
  ],
  async run(context) {
    const { service } = context;
    const databaseUrl = service.database?.env.DATABASE_URL;
    if (!context.setup.local) return [context.skip('storage', 'storage', ONLY_LOCAL)];
    if (databaseUrl === undefined)
      return [context.skip('storage', 'storage', 'needs DATABASE_URL (the embedded engine is one session, held by the service)')];
    return [await storageRun(context, service.codes.slice(0, CLICK_SAMPLE), databaseUrl)];
  },
};

/**
 * The size of what the seeding wrote to Postgres and to Redis, then one click on each link of
 * `codes` (the click flusher writes their rows of link_clicks_daily, their counts in `links` and
 * their rollups), and the size of that; then BUSY_CLICKS - 1 more on each, and what the rollups of
 * that busy day cost. The clicks are browsers' (load/visitors.ts), through a service of their own
 * that believes X-Forwarded-For from loopback (the main service does not: every click would come
 * from 127.0.0.1, one country), on the same database and Redis.
 */
async function storageRun(context: Context, codes: readonly string[], databaseUrl: string): Promise<RunResult> {
  const { service } = context;
  const links = await linksStorage(databaseUrl);
  const keys = service.redis === null ? null : await redisStorage(service.redis.url, service.redis.prefix);
  const empty = await clickTableSizes(databaseUrl);
  // Statements of two minutes: a flush of a busy day's rollups takes longer than the default 2 s
  // allows (load/enrich-bench.ts), and here it is the size that is measured, not the time.
  const clicker = await context.processes.launch({
    ...service.database?.env,
    ...service.redis?.env,
    TRUST_PROXY: 'loopback',
    ANALYTICS_ENABLED: 'true',
    CLICK_FLUSH_INTERVAL_MS: '1000',
    ANALYTICS_FLUSH_INTERVAL_MS: '1000',
    DB_STATEMENT_TIMEOUT_MS: '120000',
    BREAKER_TIMEOUT_MS: '125000',
  });
  const clicked = clicking(23);
  const click = async (times: number, counted: number) => {
    const requests = clicked(Array.from({ length: times }, () => codePaths(codes)).flat());
    const clicks = { scenario: 'storage', variant: 'service', label: 'clicks', url: clicker.url, connections: context.options.connections };
    await measure({ ...clicks, requests: () => requests, amount: requests.length }, 600, 0);
    await clicksCounted(context, databaseUrl, counted);
  };
  const analytics: AnalyticsStorage[] = [];
  try {
    await click(1, codes.length);
    const clickedRows = await clicksStorage(databaseUrl);
    analytics.push(await analyticsStorage(databaseUrl, empty, codes.length, 1));
    context.log(`storage: the busy day: ${BUSY_CLICKS - 1} more clicks on each of the ${codes.length.toLocaleString('en-US')} links`);
    await click(BUSY_CLICKS - 1, codes.length * BUSY_CLICKS);
    analytics.push(await analyticsStorage(databaseUrl, empty, codes.length, BUSY_CLICKS));
    const figures = { postgres: { ...links, ...clickedRows }, redis: keys, analytics };
    context.log(`storage: ${describeStorage(figures).join('; ')}`);
    return quietRun('storage', 'storage', { storage: figures });
  } finally {
    await context.processes.stop(clicker);
  }
}

/**
 * Waits until link_clicks_daily and the links' own rows of click_rollups (dimension 0: every
 * click) both count `clicks` clicks. Gives up when the count has not grown for 150 s (a flush may
 * take up to the clicker's statement timeout).
 */
async function clicksCounted(context: Context, databaseUrl: string, clicks: number): Promise<void> {
  const count = () =>
    withClient(databaseUrl, async (client) => {
      const { rows } = await client.query<{ n: string }>(
        `SELECT least((SELECT coalesce(sum(clicks + bot_clicks), 0) FROM link_clicks_daily),
                      (SELECT coalesce(sum(clicks + bot_clicks), 0) FROM click_rollups WHERE dimension = 0)) AS n`,
      );
      return Number(rows[0]?.n);
    });
  let last = -1;
  for (let still = 0; still < 150_000; still += 250) {
    const now = await count();
    if (now >= clicks) return;
    if (now !== last) still = 0;
    last = now;
    await sleep(250);
  }
  context.log(
    `storage: link_clicks_daily and click_rollups count ${last.toLocaleString('en-US')} of ${clicks.toLocaleString('en-US')} clicks, and no more for 150 s; sizing those`,
  );
}
