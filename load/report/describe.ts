// A run and its figures in words, for the page and the terminal table alike.

import type { AnalyticsStorage, ListFigures, ListPlan, RunResult, StorageFigures, TargetResult, Verdict } from '../types.ts';
import { median, spreadOf } from '../percentiles.ts';
import { perCpuSecond, unsaturated } from '../targets.ts';
import { fmtMs, fmtSeconds, intFmt } from './format.ts';

export function fmtCpu(share: number | null): string {
  return share === null ? '—' : `${Math.round(share * 100)} %`;
}

/** Server CPU per request of a run, in µs. */
export function fmtCpuPerRequest(run: RunResult): string {
  return run.cpu.server === null ? '—' : `${((run.cpu.server / run.rps) * 1e6).toFixed(1)} µs`;
}

/** A startup run's figures: the first start, then the restarts. */
export function fmtStartup(run: RunResult): string {
  const figures = run.startup;
  if (figures === undefined) return '';
  return (
    `npm ci's prepare ${figures.prepareMs.map(fmtSeconds).join(', ')}; first starts (fresh data) ready ${figures.firstMs.map(fmtSeconds).join(', ')}; ` +
    `restarts ${figures.restartsMs.map(fmtSeconds).join(', ')}`
  );
}

/** A starts run's figures: each start's requests per server CPU-second, and their spread. */
export function fmtStarts(run: RunResult): string {
  const figures = run.starts?.perCpuSecond;
  if (figures === undefined || figures.length === 0) return '';
  return (
    `${figures.length} fresh starts, per server CPU-second: ${figures.map((n) => intFmt.format(n)).join(', ')} ` +
    `(median ${intFmt.format(median(figures))}, spread ${(spreadOf(figures) * 100).toFixed(0)} %)`
  );
}

export function fmtMemory(run: RunResult): string {
  const m = run.memory;
  if (m === undefined) return '';
  return (
    `${intFmt.format(m.links)} links · RSS ${intFmt.format(m.rssMb)} MB (${intFmt.format(m.rssBeforeMb)} MB before the first) · ` +
    `heap ${intFmt.format(m.heapUsedMb)} MB · ${intFmt.format(m.bytesPerLink)} B/link`
  );
}

/** The storage figures in lines: Postgres (links and link_totals; the indexes of links; after clicks; analytics), then Redis. */
export function describeStorage(storage: StorageFigures): string[] {
  const n = (v: number) => intFmt.format(v);
  const p = storage.postgres;
  const t = p.totals;
  const postgres =
    `Postgres ${n(p.allBytesPerLink)} B/link: links ${n(p.bytesPerLink)} B/link (heap ${n(p.heapBytesPerLink)}, ` +
    `indexes ${n(p.indexBytesPerLink)}, other ${n(p.bytesPerLink - p.heapBytesPerLink - p.indexBytesPerLink)}) over ` +
    `${n(p.links)} links of ${p.urlBytes}-byte URLs, and link_totals ${n(t.bytesPerLink)} B/link ` +
    `(heap ${n(t.heapBytesPerLink)}, indexes ${n(t.indexBytesPerLink)}; ${n(t.rows)} rows)`;
  const indexes = `indexes of links, B/link: ${Object.entries(p.indexBytesPerLinkByName)
    .map(([name, bytes]) => `${name} ${n(bytes)}`)
    .join(', ')}`;
  const c = p.clickedTotals;
  const clicks =
    p.clickBytesPerRow === null
      ? 'after clicks: no rows written to link_clicks_daily'
      : `after one click on ${n(p.clickRows)} links: link_clicks_daily ${n(p.clickBytesPerRow)} B/row; ` +
        `link_totals ${n(c.bytesPerLink)} B/link (heap ${n(c.heapBytesPerLink)}, indexes ${n(c.indexBytesPerLink)}); ` +
        `links heap ${n(p.clickedHeapBytesPerLink)} B/link (clicks do not write to links)`;
  const analytics = storage.analytics.map(describeAnalytics);
  const r = storage.redis;
  if (r === null) return [postgres, indexes, clicks, ...analytics, 'Redis off (REDIS_URL unset)'];
  const own = r.private;
  const redis =
    `Redis ${n(r.memoryUsagePerKey)} B/key by MEMORY USAGE (${n(r.keys)} keys, ${n(r.keysWithTtl)} with a TTL; ` +
    `names ${n(r.keyBytes)} B, values ${n(r.valueBytes)} B)` +
    (own === null
      ? ' · no private redis-server'
      : ` · private redis-server, prefix "${own.keyPrefix}": ${n(own.bytesPerKey)} B/key of used_memory, ` +
        `+${n(own.ttlBytesPerKey)} B with a TTL, negative entry ${n(own.negativeBytesPerKey)} B`);
  return [postgres, indexes, clicks, ...analytics, redis];
}

/** Clicked links a day in the yearly figure of the analytics' storage. */
const CLICKED_LINKS_A_DAY = 10_000_000;

/** What analytics adds per clicked link and day, and what CLICKED_LINKS_A_DAY cost in a year. */
function describeAnalytics(a: AnalyticsStorage): string {
  const n = (v: number) => intFmt.format(v);
  const year = (bytesPerLink: number) => fmtBytes(bytesPerLink * CLICKED_LINKS_A_DAY * 365);
  const table = (name: string, t: AnalyticsStorage['clickRollups']) =>
    `${name} ${n(t.bytesPerLink)} B (${t.rowsPerLink} rows; indexes ${n(t.indexBytesPerLink)} B)`;
  return (
    `analytics, ${a.clicksPerLink} click${a.clicksPerLink === 1 ? '' : 's'} on each of ${n(a.links)} links` +
    (a.clicks === a.links * a.clicksPerLink ? '' : ` (only ${n(a.clicks)} clicks written)`) +
    ', per clicked link and day: ' +
    `${table('click_rollups', a.clickRollups)} + ${table('workspace_rollups', a.workspaceRollups)} = ${n(a.analyticsBytesPerLink)} B; ` +
    `with ${table('link_clicks_daily', a.clicksDaily)} ${n(a.allBytesPerLink)} B · ` +
    `${n(CLICKED_LINKS_A_DAY / 1e6)}M clicked links a day for 365 days: ${year(a.analyticsBytesPerLink)} of analytics, ` +
    `${year(a.allBytesPerLink)} with the daily counts`
  );
}

/** Decimal units: 1 GB = 10^9 bytes, 1 TB = 10^12. */
function fmtBytes(bytes: number): string {
  return bytes >= 1e12 ? `${(bytes / 1e12).toFixed(2)} TB` : `${(bytes / 1e9).toFixed(1)} GB`;
}

const fmtMb = (bytes: number) => `${intFmt.format(bytes / 2 ** 20)} MB`;

/** The list scenario's figures besides latency, in lines: the data, the index builds, the export, the worst shape. */
export function describeList(list: ListFigures): string[] {
  const n = (v: number) => intFmt.format(v);
  const s = list.seeding;
  const settings = ['server_version', 'maintenance_work_mem', 'max_parallel_maintenance_workers', 'shared_buffers']
    .filter((name) => s.postgres[name] !== undefined)
    .map((name) => `${name} ${s.postgres[name]}`)
    .join(', ');
  const e = list.export;
  return [
    `${n(list.links)} links in one workspace, seeded with SQL in ${s.linksSeconds} s (${n(s.linksPerSecond)} links/s), ` +
      `their click totals copied in ${s.totalsSeconds} s; links ${fmtMb(s.linksBytes)}, link_totals ${fmtMb(s.totalsBytes)}; ${settings}`,
    `the list's indexes (migrations/0006) built after the load in ${s.indexSeconds} s ` +
      `(${((s.indexSeconds * 1e6) / list.links).toFixed(1)} s per million links): ` +
      s.indexes.map((i) => `${i.name} ${i.seconds} s (${fmtMb(i.bytes)})`).join(', '),
    e === null
      ? `GET /links/export.csv failed: ${list.exportProblem ?? 'no figures'}`
      : `GET /links/export.csv: ${n(e.rows)} rows, ${fmtMb(e.bytes)} in ${e.seconds} s (${n(e.rowsPerSecond)} rows/s); ` +
        `head after ${e.headMs} ms, first byte after ${e.firstByteMs} ms` +
        (e.serverCpuMsPer1000Rows === null ? '' : `; service CPU ${e.serverCpuMsPer1000Rows} ms per 1000 rows`),
    `${n(list.requestsPerShape)} requests per shape over ${list.connections} connections (autocannon); ` +
      `worst shape "${list.worst.label}", p99 ${fmtMs(list.worst.p99)} ms`,
  ];
}

/** The plan that took Postgres longest. */
export function slowestPlan(plans: readonly ListPlan[]): ListPlan | undefined {
  return plans.reduce<ListPlan | undefined>((a, b) => (a === undefined || b.executionMs > a.executionMs ? b : a), undefined);
}

export function hasLatency(run: RunResult): boolean {
  return run.skipped === undefined && run.requests > 0;
}

/** "≥ 102,345" when the generator was the limit: the rate is a lower bound. */
export function fmtRps(run: RunResult): string {
  if (run.rps <= 0) return '—';
  return `${run.generatorLimited === undefined ? '' : '≥ '}${intFmt.format(run.rps)}`;
}

/** Requests per second of the server's CPU (its per-core figure), when its CPU was read. */
export function fmtPerCpu(run: RunResult): string {
  const figure = perCpuSecond(run);
  return run.rps <= 0 || !Number.isFinite(figure) ? '—' : intFmt.format(Math.round(figure));
}

/** Why a figure is a lower bound or only informational, or its server was not saturated; '' when none. */
export function runNote(run: RunResult): string {
  const loose = unsaturated(run);
  return [
    run.generatorLimited === undefined ? '' : `generator-limited (${run.generatorLimited})`,
    loose === undefined ? '' : `not saturated (${loose})`,
    run.informational === undefined ? '' : `informational: ${run.informational}`,
  ]
    .filter((n) => n !== '')
    .join('; ');
}

export const LIMIT_LEGEND = '≥ generator-limited: the load generator, not the server, was the limit; the figure is a lower bound.';

export function verdictSummary(targets: readonly TargetResult[]): string {
  const verdicts: readonly Verdict[] = ['PASS', 'MISS', 'N/A', 'INFO'];
  return verdicts.map((v) => `${targets.filter((t) => t.verdict === v).length} ${v}`).join(' · ');
}
