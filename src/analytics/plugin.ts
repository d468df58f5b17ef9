// Click analytics: the visit recorder the redirect feeds, its geography database and visitor
// salts, and the hourly upkeep of partitions. With ANALYTICS_ENABLED=false there is no recorder
// (the redirect calls nothing), and the upkeep still applies the retention to the daily counts.
// With CLICK_STREAM=redis, the recorder also hands its clicks to the click stream at each click
// flush (CLICK_FLUSH_INTERVAL_MS) and at each of its folds; closed after the click flusher's last take.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Geo, SHIPPED_DATABASE } from './geo.ts';
import { Upkeep } from './retention.ts';
import { VisitorSalts } from './salts.ts';
import { Visits } from './visits.ts';
import { ClickStream } from './click-stream.ts';
import { daySalt } from './store.ts';
import type { PartOptions } from '../part.ts';

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
  }
}

export default fp(
  async function analyticsPart(app: FastifyInstance, { config, log, addressOf }: PartOptions) {
    const { db } = app;
    const parts = config.analyticsDimensions;
    let visits: Visits | null = null;
    let salts: VisitorSalts | null = null;
    let stream: ClickStream | null = null;
    let timer: NodeJS.Timeout | null = null;
    let shared: Geo | null = null;
    const geoOnce = (): Geo => {
      if (shared === null) {
        shared = new Geo(config.geoipDatabase ?? SHIPPED_DATABASE);
        log.info({ geo: shared.description, cities: shared.hasCities }, 'geography database read');
      }
      return shared;
    };
    if (config.analyticsEnabled) {
      const wantsPlace = parts.has('country') || parts.has('city');
      const geo = wantsPlace ? geoOnce() : null;
      if (parts.has('city') && geo !== null && !geo.hasCities && config.geoipDatabase !== undefined)
        log.warn({ path: config.geoipDatabase }, 'GEOIP_DATABASE names no cities: the city dimension is not kept');
      salts = new VisitorSalts({ salt: (day, fresh) => daySalt(db, day, fresh) }, log);
      if (config.clickStream === 'redis') {
        const { hosts } = app;
        stream = new ClickStream({
          redis: config,
          prefix: config.redisKeyPrefix,
          maxlen: config.clickStreamMaxlen,
          format: { shards: config.clickStreamShards, parts, hostOf: (domainId) => hosts.byId(domainId)?.host ?? '' },
          log,
        });
        log.info({ keys: stream.keys, maxlen: config.clickStreamMaxlen }, 'click stream on');
        const closing = stream;
        // Added before the click flusher's hooks, so run after them: its last take hands the last clicks over.
        app.addHook('onClose', async () => {
          if (timer !== null) clearInterval(timer);
          await closing.close();
        });
      }
      visits = new Visits({
        parts,
        geo,
        salts,
        bounds: { maxLinks: config.clickMaxCodes, valuesMax: config.analyticsValuesMax },
        // Asked once per distinct (peer, X-Forwarded-For) pair of the day, not per click.
        addressOf,
        log,
        sink: stream,
      });
    }
    if (stream !== null && visits !== null) {
      timer = setInterval(streamFlush, config.clickFlushIntervalMs, visits);
      timer.unref();
    }
    const upkeep = new Upkeep(db, salts, config.analyticsRetentionDays, log);
    await upkeep.start();
    app.addHook('onClose', async () => upkeep.stop());
    app.decorate('visits', visits);
    app.decorate('upkeep', upkeep);
    app.decorate('geo', geoOnce);
    app.decorate('clickStream', stream);
  },
  { name: 'analytics', dependencies: ['postgres', 'domains'] },
);

function streamFlush(visits: Visits): void {
  visits.stream();
}
