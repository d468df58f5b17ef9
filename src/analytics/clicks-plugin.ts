// Click counts: counted in memory on the redirect path, written to Postgres in batches. Closed
// after the write queue and before Postgres: the last counts go through the breaker.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { addOrphanVisits, addRollupChunk, addWorkspaceRollups } from './store.ts';
import { addClicks } from './click-store.ts';
import { ClickFlusher } from './click-flusher.ts';
import type { PartOptions } from '../part.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Click counts on their way to Postgres (flush() writes them now). */
    clicks: ClickFlusher;
  }
}

export default fp(
  async function clicksPart(app: FastifyInstance, { config, log }: PartOptions) {
    const { db, pool, breaker, metrics, visits } = app;
    const limits = { valuesMax: config.analyticsValuesMax, workspaceValuesMax: 4 * config.analyticsValuesMax };
    const clicks = new ClickFlusher({
      write: (counts) => breaker.run(() => addClicks(db, counts)),
      // Not through the breaker of lookups: a slow minute of rollups must not open it.
      writeRollupChunk: (rows) => addRollupChunk(pool, rows, limits),
      writeOrphans: (orphans) => addOrphanVisits(pool, orphans, limits.valuesMax),
      writeWorkspaces: (chunks) => addWorkspaceRollups(pool, chunks, limits),
      analytics: visits,
      analyticsIntervalMs: config.analyticsFlushIntervalMs,
      rollupShare: config.analyticsWriteShare,
      intervalMs: config.clickFlushIntervalMs,
      maxCodes: config.clickMaxCodes,
      log,
      flushed: metrics?.clickFlush,
    });
    app.addHook('onClose', async () => {
      await clicks.close();
    });
    clicks.start();
    app.decorate('clicks', clicks);
  },
  { name: 'clicks', dependencies: ['postgres', 'analytics'] },
);
