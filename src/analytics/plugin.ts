// Click analytics as a part: the click counts the redirect keeps in memory and the flusher that
// writes them to Postgres in batches; the visit recorder the redirect feeds (its geography database,
// visitor salts, and the hourly upkeep of partitions); the click stream; and the stats routes. The
// counts, the recorder and the geography are plugged into the edge's ports (edge/ports.ts). With
// ANALYTICS_ENABLED=false there is no recorder (the redirect calls nothing), and the upkeep still
// applies the retention to the daily counts. Closed after the write queue and before Postgres: the
// last counts go through the breaker, and the stream gets the flusher's last take.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { EdgeOptions } from '../edge/plugin.ts';
import type { PartOptions } from '../part.ts';
import { ClickFlusher } from './click-flusher.ts';
import { addClicks } from './click-store.ts';
import { ClickStream } from './click-stream.ts';
import { Geo, SHIPPED_DATABASE } from './geo.ts';
import { clickFlushes, watchClicks } from './metrics.ts';
import { Upkeep } from './retention.ts';
import { addOrphanVisits, addRollupChunk, addWorkspaceRollups, daySalt } from './rollup-store.ts';
import { VisitorSalts } from './salts.ts';
import { StatsService } from './stats.ts';
import { statsRoutes } from './stats-routes.ts';
import { StatsStore } from './stats-store.ts';
import { Visits } from './visits.ts';
import { LinkStore } from '../links/store.ts';
import { WorkspaceLinks } from '../links/workspace-links.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The visit recorder; null: analytics off. */
    visits: Visits | null;
    /** Partitions and salts, hourly. */
    upkeep: Upkeep;
    /** The geography database (read at start when analytics keeps places, else at the first ask: links' country rules). */
    geo: () => Geo;
    /** The click stream; null: CLICK_STREAM=off. */
    clickStream: ClickStream | null;
    /** Click counts on their way to Postgres (flush() writes them now). */
    clicks: ClickFlusher;
    /** Click statistics of links and workspaces, as GET /links/:code/stats and /stats answer them (and the compatible APIs). */
    stats: StatsService;
  }
}

/** The geography database, read once when first asked for. */
function geoReader(config: Config, log: Logger): () => Geo {
  let shared: Geo | null = null;
  return () => {
    if (shared === null) {
      shared = new Geo(config.geoipDatabase ?? SHIPPED_DATABASE);
      log.info({ geo: shared.description, cities: shared.hasCities }, 'geography database read');
    }
    return shared;
  };
}

/** The click stream of CLICK_STREAM=redis, handed the recorder's clicks every CLICK_FLUSH_INTERVAL_MS; null when off. */
function clickStreamOf(app: FastifyInstance, config: Config, log: Logger): ClickStream | null {
  if (config.clickStream !== 'redis') return null;
  const { hosts } = app;
  const stream = new ClickStream({
    redis: config,
    prefix: config.redisKeyPrefix,
    maxlen: config.clickStreamMaxlen,
    format: { shards: config.clickStreamShards, parts: config.analyticsDimensions, hostOf: (domainId) => hosts.byId(domainId)?.host ?? '' },
    log,
  });
  log.info({ keys: stream.keys, maxlen: config.clickStreamMaxlen }, 'click stream on');
  return stream;
}

/** The visit recorder (null with analytics off), its salts, and its stream. */
function recorderOf(app: FastifyInstance, config: Config, log: Logger, geo: () => Geo, addressOf: EdgeOptions['addressOf']) {
  if (!config.analyticsEnabled) return { visits: null, salts: null, stream: null };
  const parts = config.analyticsDimensions;
  const places = parts.has('country') || parts.has('city') ? geo() : null;
  if (parts.has('city') && places !== null && !places.hasCities && config.geoipDatabase !== undefined)
    log.warn({ path: config.geoipDatabase }, 'GEOIP_DATABASE names no cities: the city dimension is not kept');
  const salts = new VisitorSalts({ salt: (day, fresh) => daySalt(app.db, day, fresh) }, log);
  const stream = clickStreamOf(app, config, log);
  const visits = new Visits({
    parts,
    geo: places,
    salts,
    bounds: { maxLinks: config.clickMaxCodes, valuesMax: config.analyticsValuesMax },
    // Asked once per distinct (peer, X-Forwarded-For) pair of the day, not per click.
    addressOf,
    log,
    sink: stream,
  });
  return { visits, salts, stream };
}

/** The click counts and their flusher: the counts through the breaker, the rollups not (a slow minute of rollups must not open it). */
function clickFlusherOf(app: FastifyInstance, config: Config, log: Logger, visits: Visits | null): ClickFlusher {
  const { db, pool, breaker, metrics } = app;
  const limits = { valuesMax: config.analyticsValuesMax, workspaceValuesMax: 4 * config.analyticsValuesMax };
  return new ClickFlusher({
    write: (counts) => breaker.run(() => addClicks(db, counts)),
    writeRollupChunk: (rows) => addRollupChunk(pool, rows, limits),
    writeOrphans: (orphans) => addOrphanVisits(pool, orphans, limits.valuesMax),
    writeWorkspaces: (chunks) => addWorkspaceRollups(pool, chunks, limits),
    analytics: visits,
    analyticsIntervalMs: config.analyticsFlushIntervalMs,
    rollupShare: config.analyticsWriteShare,
    intervalMs: config.clickFlushIntervalMs,
    maxCodes: config.clickMaxCodes,
    log,
    flushed: metrics === null ? undefined : clickFlushes(metrics),
  });
}

async function analyticsPart(
  app: FastifyInstance,
  { config, log, addressOf }: PartOptions & Pick<EdgeOptions, 'addressOf'>,
): Promise<void> {
  const geo = geoReader(config, log);
  const { visits, salts, stream } = recorderOf(app, config, log, geo, addressOf);
  if (stream !== null && visits !== null) {
    const timer = setInterval(streamFlush, config.clickFlushIntervalMs, visits);
    timer.unref();
    // Added before the click flusher's hooks, so run after them: its last take hands the last clicks over.
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await stream.close();
    });
  }
  const upkeep = new Upkeep(app.db, salts, config.analyticsRetentionDays, log);
  await upkeep.start();
  app.addHook('onClose', async () => upkeep.stop());
  const clicks = clickFlusherOf(app, config, log, visits);
  app.addHook('onClose', async () => {
    await clicks.close();
  });
  clicks.start();
  if (app.metrics !== null) watchClicks(app.metrics, clicks, visits, stream);

  const ports = app.redirectPorts;
  ports.clicks = clicks.counter;
  ports.visits = visits;
  ports.countryOf = (address) => geo().place(address).country;

  const stats = new StatsService({
    store: new StatsStore(app.listDb, app.listBreaker),
    links: new WorkspaceLinks(new LinkStore(app.db, app.breaker), app.shortUrls),
    shortUrls: app.shortUrls,
    kept: visits?.dimensions ?? [],
  });
  await app.register(statsRoutes, { stats });
  app.decorate('stats', stats);

  app.decorate('visits', visits);
  app.decorate('upkeep', upkeep);
  app.decorate('geo', geo);
  app.decorate('clickStream', stream);
  app.decorate('clicks', clicks);
}

function streamFlush(visits: Visits): void {
  visits.stream();
}

export default fp(analyticsPart, { name: 'analytics', dependencies: ['postgres', 'read-path', 'edge', 'auth', 'domains'] });
