// What leaves the request path: click counts and analytics, webhooks, the click stream.
// Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { ANALYTICS_PARTS, isAnalyticsPart, type AnalyticsPart } from '../core/dimensions.ts';
import { CLICK_STREAMS } from './values.ts';
import { Type } from 'typebox';
import { commaList, hoursAsMs, isReadableFile, optional, type Settings } from './schema.ts';
import { parseSchedule } from '../core/webhooks.ts';

export const EVENT_SETTINGS = {
  clickFlushIntervalMs: {
    env: 'CLICK_FLUSH_INTERVAL_MS',
    schema: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 5000 }),
    doc:
      "how often click counts are written to Postgres (and at each UTC midnight); a crash loses at most this long's clicks, " +
      'see [Click counts](#click-counts)',
  },
  clickMaxCodes: {
    env: 'CLICK_MAX_CODES',
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20_000 }),
    doc:
      'most distinct links counted between two flushes, and most (link, day) counts waiting for Postgres; ' +
      'clicks beyond it are dropped, counted in `shortener_clicks_dropped_total` and logged',
  },
  analyticsEnabled: {
    env: 'ANALYTICS_ENABLED',
    schema: Type.Boolean({ default: true }),
    doc:
      'click analytics (referrers, countries, devices, browsers, systems, languages, QR scans, unique visitors, ' +
      'visits to unknown codes), see [Click analytics](#click-analytics); hot redirects with them run at 0.94–0.99× their rate ' +
      'without on one core (see [Performance](#performance)); `false`: only the click counts, and the redirect calls nothing more',
  },
  analyticsDimensions: {
    env: 'ANALYTICS_DIMENSIONS',
    schema: Type.Decode(
      commaList(isAnalyticsPart),
      (parts) => new Set<AnalyticsPart>(parts.length === 0 ? ANALYTICS_PARTS : (parts as AnalyticsPart[])),
    ),
    expected: `a comma-separated list of ${ANALYTICS_PARTS.join(', ')}`,
    shownDefault: 'all of them',
    doc: `what analytics keeps, a comma-separated list of \`${ANALYTICS_PARTS.join('`, `')}\` (\`city\` needs a city database in \`GEOIP_DATABASE\`)`,
  },
  analyticsFlushIntervalMs: {
    env: 'ANALYTICS_FLUSH_INTERVAL_MS',
    schema: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000 }),
    doc:
      "how often the analytics' rollups are taken and written to Postgres (after a count write, beside the counts, paced by " +
      "`ANALYTICS_WRITE_SHARE`); a crash loses at most this long's analytics and the part of a write under way not yet " +
      'committed (a graceful stop none), see [Click analytics](#click-analytics)',
  },
  analyticsWriteShare: {
    env: 'ANALYTICS_WRITE_SHARE',
    schema: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 1 }),
    expected: 'a number above 0 and at most 1',
    doc:
      "the most of its time a write of the analytics' rollups keeps Postgres busy (one connection): below `1`, after each " +
      'statement the next waits until that one took this share of the time, unless the write would then not end within half an ' +
      "`ANALYTICS_FLUSH_INTERVAL_MS`, so that a busy minute's rows are written over more time (`0.25`: four times as long); " +
      '`1`: one statement after the other, see [Click analytics](#click-analytics)',
  },
  analyticsValuesMax: {
    env: 'ANALYTICS_VALUES_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
    doc:
      'most values kept per link, day and dimension (four times as many per workspace), and unknown codes kept per domain and day; ' +
      'the rest is counted as `other`',
  },
  analyticsRetentionDays: {
    env: 'ANALYTICS_RETENTION_DAYS',
    schema: Type.Integer({ minimum: 0, maximum: 36_500, default: 400 }),
    doc: 'days the daily click counts and the analytics are kept; a month is dropped once all its days are older. `0`: kept for ever',
  },
  geoipDatabase: {
    env: 'GEOIP_DATABASE',
    schema: optional(Type.Refine(Type.String(), isReadableFile)),
    expected: 'the path of a readable MMDB file',
    shownDefault: 'the country database shipped with the package',
    doc: 'an MMDB file to read countries from instead (GeoLite2-Country or -City, DB-IP); with a city database, `city` is kept too',
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
    doc: 'how long a webhook delivery may take, from connecting to the end of the answer; longer is a failed try (see [Webhooks](#webhooks))',
  },
  webhookRetrySchedule: {
    env: 'WEBHOOK_RETRY_SCHEDULE',
    schema: Type.Decode(
      Type.Refine(Type.String({ default: '5s,5m,30m,2h,5h,10h,10h' }), (raw) => parseSchedule(raw) !== undefined),
      (raw) => Object.freeze(parseSchedule(raw) ?? []),
    ),
    expected: 'a comma-separated list of delays such as 5s,5m,30m,2h (units ms, s, m, h)',
    doc:
      'the waits before each retry of a failed webhook delivery (each give or take 20 %); after the last retry fails the ' +
      "delivery is dead (kept in the log, resent by hand). The default, 27.6 hours over 8 tries, is Standard Webhooks'",
  },
  webhookMaxInFlight: {
    env: 'WEBHOOK_MAX_IN_FLIGHT',
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    doc: 'deliveries under way at once to one endpoint, across all instances',
  },
  webhookPollMs: {
    env: 'WEBHOOK_POLL_MS',
    schema: Type.Integer({ minimum: 50, maximum: 60_000, default: 1000 }),
    doc: 'how often each instance looks for due webhook deliveries and links that have expired or will soon',
  },
  linkExpiringNoticeMs: {
    env: 'LINK_EXPIRING_NOTICE_HOURS',
    schema: hoursAsMs(Type.Integer({ minimum: 0, maximum: 8760, default: 24 })),
    doc:
      'how long before a link expires its `link.expiring` webhook event is written (once per expiry; a link made or changed to ' +
      'expire sooner gets it at once); `0`: never',
  },
  webhookAllowPrivate: {
    env: 'WEBHOOK_ALLOW_PRIVATE',
    schema: Type.Boolean({ default: false }),
    doc:
      '`true` lets webhook endpoints be on loopback, private and other non-public addresses (an intranet receiver, tests). ' +
      'By default a webhook URL passes the rules of a link target, and a delivery connects only to public addresses its name resolves to',
  },
  webhookSecretOverlapMs: {
    env: 'WEBHOOK_SECRET_OVERLAP_HOURS',
    schema: hoursAsMs(Type.Integer({ minimum: 0, maximum: 720, default: 24 })),
    doc: "hours a webhook endpoint's secret still signs (beside the new one) after it is rotated",
  },
  webhookLogRetentionDays: {
    env: 'WEBHOOK_LOG_RETENTION_DAYS',
    schema: Type.Integer({ minimum: 1, maximum: 3650, default: 30 }),
    doc: 'days delivered and dead webhook deliveries stay in the delivery log',
  },
  webhookResendsPerMinute: {
    env: 'WEBHOOK_RESENDS_PER_MINUTE',
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 10 }),
    doc:
      'webhook deliveries a workspace may send again, and test events it may send, per minute together, across all instances ' +
      '(more: 429 `WEBHOOK_RESEND_RATE_LIMITED` or `WEBHOOK_TEST_RATE_LIMITED`)',
  },
  clickStream: {
    env: 'CLICK_STREAM',
    schema: Type.Enum(CLICK_STREAMS, { default: 'off' }),
    doc:
      '`redis`: each click, enriched as analytics keeps it (no address), is also added to Redis Streams at each click flush, ' +
      "for a consumer group of the deployment's own; needs `REDIS_URL` or `REDIS_CLUSTER_URLS` and `ANALYTICS_ENABLED`. " +
      'See [Click stream](#click-stream)',
  },
  clickStreamMaxlen: {
    env: 'CLICK_STREAM_MAXLEN',
    schema: Type.Integer({ minimum: 100, maximum: 1_000_000_000, default: 1_000_000 }),
    doc:
      'about how many events each stream keeps (`XADD … MAXLEN ~`): older ones are trimmed, read or not; ' +
      'a consumer that falls further behind loses what was trimmed, and can count it',
  },
  clickStreamShards: {
    env: 'CLICK_STREAM_SHARDS',
    schema: Type.Integer({ minimum: 1, maximum: 1024, default: 1 }),
    doc:
      'streams the clicks are spread over (`<REDIS_KEY_PREFIX>clicks:0` …), a link always on the same one; ' +
      'on a cluster each is a key of its own slot, so more of them spread the work over the masters',
  },
} satisfies Settings;
