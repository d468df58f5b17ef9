// Turns a load-suite result into one self-contained HTML page (inline CSS and SVG, no scripts,
// nothing fetched) and into a plain-text table for the terminal.

import type { AnalyticsStorage, ListFigures, ListPlan, RunResult, StorageFigures, SuiteResult, TargetResult, Verdict } from './types.ts';

const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const SVG_W = 1060;
const LABEL_W = 300;
const SERVICE_COLOUR = '#2563eb';
const OTHER_COLOUR = '#f59e0b';
const PCT_COLOURS = { p50: '#16a34a', p99: '#f59e0b', p999: '#dc2626' } as const;
// Log axis floor: sub-10 µs latencies are noise, and log(0) has no place on the axis.
const MIN_MS = 0.01;

export function escapeHtml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

export function fmtMs(v: number): string {
  if (!Number.isFinite(v)) return '—';
  if (v < 1) return v.toFixed(2);
  if (v < 10) return v.toFixed(1);
  return intFmt.format(v);
}

function fmtCpu(share: number | null): string {
  return share === null ? '—' : `${Math.round(share * 100)} %`;
}

export function fmtStatuses(statuses: Readonly<Record<string, number>>): string {
  const entries = Object.entries(statuses).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '—' : entries.map(([code, n]) => `${code}: ${intFmt.format(n)}`).join(', ');
}

export function fmtDuration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

function fmtMemory(run: RunResult): string {
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

const isListShape = (run: RunResult) => run.listShape !== undefined;

const LIST_HEADERS = ['shape', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'failed', 'rows matched', 'plan: indexes (ms in Postgres)'];

/** Responses other than 200, and requests without an answer. */
function failedRequests(run: RunResult): string {
  const failed = run.errors + Object.entries(run.statuses).reduce((sum, [status, n]) => sum + (status === '200' ? 0 : n), 0);
  return intFmt.format(failed);
}

/** One row per list shape, and one over all of them: percentiles, the rows its filter matches, the plan's indexes. */
function listRows(runs: readonly RunResult[]): string[][] {
  const overall = runs.find((run) => run.list !== undefined);
  const percentileCells = (run: RunResult) => [run.latency.p50, run.latency.p95 ?? Number.NaN, run.latency.p99, run.latency.max].map(fmtMs);
  const shapes = runs.filter(isListShape).map((run) => {
    const plan = slowestPlan(run.listShape?.plans ?? []);
    return [
      run.label.replace(/^list · /, ''),
      fmtRps(run),
      ...percentileCells(run),
      failedRequests(run),
      plan === undefined || plan.matches === null ? '—' : intFmt.format(plan.matches),
      plan === undefined ? '—' : `${plan.indexes.join(' + ') || 'no index'} (${fmtMs(plan.executionMs)})${pathValues(run, plan)}`,
    ];
  });
  return overall === undefined || shapes.length === 0
    ? []
    : [...shapes, ['all shapes', fmtRps(overall), ...percentileCells(overall), failedRequests(overall), '', '']];
}

/** The plan that took Postgres longest. */
export function slowestPlan(plans: readonly ListPlan[]): ListPlan | undefined {
  return plans.reduce<ListPlan | undefined>((a, b) => (a === undefined || b.executionMs > a.executionMs ? b : a), undefined);
}

/** For a shape of several paths, which one a plan is: its query string without the page size. */
function pathValues(run: RunResult, plan: ListPlan): string {
  if ((run.listShape?.paths.length ?? 0) < 2) return '';
  const params = new URL(plan.path, 'http://list.invalid').searchParams;
  const value = [...params].filter(([name]) => name !== 'limit' && name !== 'cursor' && name !== 'sort');
  return value.length === 0 ? '' : ` for ${value.map(([name, v]) => `${name}=${v}`).join('&')}`;
}

function listSection(runs: readonly RunResult[]): string {
  const overall = runs.find((run) => run.list !== undefined);
  const rows = listRows(runs);
  if (overall?.list === undefined || rows.length === 0) return '';
  const cell = (text: string, i: number) => td(text, i > 0 && i < 8 ? 'num' : '');
  const plans = runs.flatMap((run) =>
    (run.listShape?.plans ?? []).map(
      (plan) =>
        `<details><summary>${escapeHtml(`${run.label}: ${plan.path} (${fmtMs(plan.executionMs)} ms in Postgres)`)}</summary>` +
        `<pre>${escapeHtml(plan.text)}</pre></details>`,
    ),
  );
  return `<h2>Link list</h2>
${describeList(overall.list)
  .map((line) => `<p class="meta">${escapeHtml(line)}</p>`)
  .join('\n')}
<div class="scroll"><table class="runs"><thead><tr>${LIST_HEADERS.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((cells) => `<tr>${cells.map(cell).join('')}</tr>`).join('')}</tbody></table></div>
<p class="muted">The plans: EXPLAIN (ANALYZE, BUFFERS) of the statement that the service runs for each path of each shape, on a warm cache; the table shows the slowest path's.</p>
${plans.join('')}`;
}

function hasLatency(run: RunResult): boolean {
  return run.skipped === undefined && run.requests > 0;
}

/** "≥ 102,345" when the generator was the limit: the rate is a lower bound. */
function fmtRps(run: RunResult): string {
  if (run.rps <= 0) return '—';
  return `${run.generatorLimited === undefined ? '' : '≥ '}${intFmt.format(run.rps)}`;
}

/** Why a figure is a lower bound or only informational; '' when it is neither. */
function runNote(run: RunResult): string {
  return [
    run.generatorLimited === undefined ? '' : `generator-limited (${run.generatorLimited})`,
    run.informational === undefined ? '' : `informational: ${run.informational}`,
  ]
    .filter((n) => n !== '')
    .join('; ');
}

const LIMIT_LEGEND = '≥ generator-limited: the load generator, not the server, was the limit; the figure is a lower bound.';

function verdictSummary(targets: readonly TargetResult[]): string {
  const verdicts: readonly Verdict[] = ['PASS', 'MISS', 'N/A', 'INFO'];
  return verdicts.map((v) => `${targets.filter((t) => t.verdict === v).length} ${v}`).join(' · ');
}

// Long labels would run into the bars; the full text stays available as a tooltip.
function svgLabel(x: number, y: number, text: string, maxChars = 44): string {
  const shown = text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
  return `<text x="${x}" y="${y}" text-anchor="end"><title>${escapeHtml(text)}</title>${escapeHtml(shown)}</text>`;
}

export function svgOpen(height: number, title: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SVG_W}" height="${height}" viewBox="0 0 ${SVG_W} ${height}" ` +
    `font-family="system-ui, sans-serif" font-size="12" fill="#111827" role="img" aria-label="${escapeHtml(title)}">`
  );
}

function legend(items: readonly (readonly [string, string])[], y: number): string {
  let x = LABEL_W;
  return items
    .map(([colour, text]) => {
      const item =
        `<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${colour}" rx="2"/>` +
        `<text x="${x + 18}" y="${y}">${escapeHtml(text)}</text>`;
      x += 30 + text.length * 7;
      return item;
    })
    .join('');
}

interface Row {
  readonly run: RunResult;
  readonly y: number;
}

/** Groups runs by scenario (first appearance order, input order within), with shaded bands and headings. */
function layoutGroups(runs: readonly RunResult[], top: number, rowH: number): { rows: Row[]; svg: string[]; height: number } {
  const groups = new Map<string, RunResult[]>();
  for (const run of runs) {
    const group = groups.get(run.scenario);
    if (group) group.push(run);
    else groups.set(run.scenario, [run]);
  }
  const rows: Row[] = [];
  const svg: string[] = [];
  let y = top;
  let band = 0;
  for (const [scenario, group] of groups) {
    const h = 20 + group.length * rowH + 4;
    if (band % 2 === 0) svg.push(`<rect x="0" y="${y}" width="${SVG_W}" height="${h}" fill="#eef2f7"/>`);
    svg.push(`<text x="8" y="${y + 15}" font-weight="600" fill="#475569">${escapeHtml(scenario)}</text>`);
    group.forEach((run, i) => rows.push({ run, y: y + 20 + i * rowH }));
    y += h;
    band += 1;
  }
  return { rows, svg, height: y };
}

function throughputChart(runs: readonly RunResult[]): string {
  const shown = runs.filter((r) => r.skipped === undefined && r.rps > 0);
  if (shown.length === 0) return '<p class="muted">No throughput was measured.</p>';
  const max = Math.max(...shown.map((r) => r.rps));
  const plotW = SVG_W - LABEL_W - 120;
  const { rows, svg, height } = layoutGroups(shown, 28, 24);
  const parts = [
    legend(
      [
        [SERVICE_COLOUR, 'service'],
        [OTHER_COLOUR, 'baseline / naive / other'],
      ],
      16,
    ),
    ...svg,
  ];
  for (const { run, y } of rows) {
    const w = Math.max(1, (run.rps / max) * plotW);
    const fill = run.variant === 'service' ? SERVICE_COLOUR : OTHER_COLOUR;
    parts.push(
      svgLabel(LABEL_W - 10, y + 13, run.label),
      `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="18" fill="${fill}" rx="2"/>`,
      `<text x="${(LABEL_W + w + 6).toFixed(1)}" y="${y + 13}">${intFmt.format(run.rps)} req/s</text>`,
    );
  }
  parts.push(`<line x1="${LABEL_W}" y1="28" x2="${LABEL_W}" y2="${height}" stroke="#64748b"/>`);
  return `${svgOpen(height + 8, 'Throughput per run')}${parts.join('')}</svg>`;
}

function latencyChart(runs: readonly RunResult[]): string {
  const shown = runs.filter(hasLatency);
  if (shown.length === 0) return '<p class="muted">No latency was measured.</p>';
  const all = shown.flatMap((r) => [r.latency.p50, r.latency.p99, r.latency.p999]);
  const minExp = Math.log10(MIN_MS);
  const maxExp = Math.max(3, Math.ceil(Math.log10(Math.max(...all, MIN_MS))));
  const plotW = SVG_W - LABEL_W - 170;
  const x = (v: number): number => LABEL_W + ((Math.log10(Math.max(v, MIN_MS)) - minExp) / (maxExp - minExp)) * plotW;
  const top = 46;
  const { rows, svg, height } = layoutGroups(shown, top, 22);
  const parts = [
    legend(
      [
        [PCT_COLOURS.p50, 'p50'],
        [PCT_COLOURS.p99, 'p99'],
        [PCT_COLOURS.p999, 'p99.9'],
      ],
      16,
    ),
    `<text x="${SVG_W - 8}" y="16" text-anchor="end" fill="#475569">ms, log scale · right: p50 / p99 / p99.9</text>`,
    ...svg,
  ];
  for (let e = minExp; e <= maxExp; e++) {
    const tx = x(10 ** e).toFixed(1);
    const tick = e < 0 ? (10 ** e).toFixed(-e) : intFmt.format(10 ** e);
    parts.push(
      `<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${height}" stroke="#cbd5e1"/>`,
      `<text x="${tx}" y="${top - 8}" text-anchor="middle" fill="#475569">${tick}</text>`,
      `<text x="${tx}" y="${height + 14}" text-anchor="middle" fill="#475569">${tick}</text>`,
    );
  }
  for (const { run, y } of rows) {
    const { p50, p99, p999 } = run.latency;
    const cy = y + 9;
    parts.push(
      svgLabel(LABEL_W - 10, y + 13, run.label),
      `<line x1="${x(p50).toFixed(1)}" y1="${cy}" x2="${x(p999).toFixed(1)}" y2="${cy}" stroke="#64748b" stroke-width="2"/>`,
      `<circle cx="${x(p50).toFixed(1)}" cy="${cy}" r="5" fill="${PCT_COLOURS.p50}"><title>p50 ${fmtMs(p50)} ms</title></circle>`,
      `<rect x="${(x(p99) - 4.5).toFixed(1)}" y="${cy - 4.5}" width="9" height="9" fill="${PCT_COLOURS.p99}">` +
        `<title>p99 ${fmtMs(p99)} ms</title></rect>`,
      `<path d="M${x(p999).toFixed(1)} ${cy - 6}l6 10h-12z" fill="${PCT_COLOURS.p999}"><title>p99.9 ${fmtMs(p999)} ms</title></path>`,
      `<text x="${SVG_W - 8}" y="${y + 13}" text-anchor="end">${fmtMs(p50)} / ${fmtMs(p99)} / ${fmtMs(p999)} ms</text>`,
    );
  }
  return `${svgOpen(height + 22, 'Latency percentiles per run')}${parts.join('')}</svg>`;
}

export function td(text: string, cls = ''): string {
  return `<td${cls === '' ? '' : ` class="${cls}"`}>${escapeHtml(text)}</td>`;
}

function targetsTable(targets: readonly TargetResult[]): string {
  const cls: Record<Verdict, string> = { PASS: 'pass', MISS: 'miss', 'N/A': 'na', INFO: 'info' };
  const rows = targets.map(
    (t) => `<tr>${td(t.name)}${td(t.value, 'num')}${td(t.verdict, `verdict ${cls[t.verdict]}`)}${td(t.detail ?? '')}</tr>`,
  );
  return `<p class="summary">${escapeHtml(verdictSummary(targets))}</p>
<table><thead><tr><th>target</th><th>value</th><th>verdict</th><th>detail</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const RUN_HEADERS = [
  'label',
  'scenario',
  'variant',
  'generator',
  'conn.',
  'offered',
  's',
  'requests',
  'req/s',
  'p50',
  'p99',
  'p99.9',
  'max (ms)',
  'statuses',
  'errors',
  'CPU client',
  'CPU server',
  'note',
];

function runRow(run: RunResult): string {
  const head = td(run.label) + td(run.scenario) + td(run.variant) + td(run.generator ?? '—');
  if (run.skipped !== undefined)
    return `<tr>${head}<td class="skip" colspan="${RUN_HEADERS.length - 4}">skipped: ${escapeHtml(run.skipped)}</td></tr>`;
  const lat = hasLatency(run);
  const ms = (v: number): string => (lat ? fmtMs(v) : '—');
  const cells = [
    td(String(run.connections), 'num'),
    td(run.offeredRate === null ? 'max' : `${intFmt.format(run.offeredRate)}/s`, 'num'),
    td(String(run.seconds), 'num'),
    td(intFmt.format(run.requests), 'num'),
    td(fmtRps(run), run.generatorLimited === undefined ? 'num' : 'num limited'),
    ...[run.latency.p50, run.latency.p99, run.latency.p999, run.latency.max].map((v) => td(ms(v), 'num')),
    // Keep each "code: count" pair on one line when the cell wraps.
    `<td>${escapeHtml(fmtStatuses(run.statuses)).replaceAll(': ', ':&nbsp;')}</td>`,
    td(intFmt.format(run.errors), run.errors > 0 ? 'num bad' : 'num'),
    td(fmtCpu(run.cpu.client), 'num'),
    td(fmtCpu(run.cpu.server), 'num'),
    td(runNote(run)),
  ];
  // Memory and storage fields get rows of their own under the run: as columns they would make the table too wide.
  const sub = (text: string) =>
    `<tr class="sub"><td colspan="4"></td><td colspan="${RUN_HEADERS.length - 4}">${escapeHtml(text)}</td></tr>`;
  const memory = run.memory === undefined ? '' : sub(`memory: ${fmtMemory(run)}`);
  const storage = run.storage === undefined ? '' : describeStorage(run.storage).map(sub).join('');
  const list = run.list === undefined ? '' : describeList(run.list).map(sub).join('');
  return `<tr>${head}${cells.join('')}</tr>${memory}${storage}${list}`;
}

function runsTable(runs: readonly RunResult[]): string {
  const head = RUN_HEADERS.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  return `<div class="scroll"><table class="runs"><thead><tr>${head}</tr></thead><tbody>${runs.map(runRow).join('')}</tbody></table></div>`;
}

export const CSS = `
body { font: 14px/1.45 system-ui, sans-serif; background: #f8fafc; color: #111827; max-width: 1100px; margin: 24px auto; padding: 0 16px; }
h1 { font-size: 24px; margin: 0 0 6px; } h2 { font-size: 18px; margin: 28px 0 8px; }
.meta { margin: 2px 0; color: #374151; } .muted { color: #6b7280; }
code { font-size: 13px; background: #e5e7eb; padding: 1px 4px; border-radius: 3px; }
table { border-collapse: collapse; font-size: 13px; background: #fff; }
th, td { padding: 4px 8px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
th { background: #f1f5f9; font-weight: 600; vertical-align: bottom; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.verdict { font-weight: 700; text-align: center; }
.pass { background: #dcfce7; color: #166534; } .miss { background: #fee2e2; color: #991b1b; } .na { background: #f3f4f6; color: #6b7280; }
.info { background: #e0f2fe; color: #075985; } td.limited { color: #92400e; font-weight: 600; }
.bad { color: #b91c1c; font-weight: 600; } td.skip { color: #6b7280; font-style: italic; }
.summary { font-weight: 600; margin: 4px 0 8px; }
.scroll { overflow-x: auto; } table.runs { font-size: 12px; } table.runs :is(th, td) { padding: 4px 5px; }
table.runs td:first-child { max-width: 200px; } table.runs td:nth-child(2) { white-space: nowrap; }
table.runs td:nth-child(3) { max-width: 140px; } tr.sub td { border-top: 0; color: #374151; }
svg { display: block; background: #fff; border: 1px solid #e5e7eb; }
details { margin: 4px 0; } summary { cursor: pointer; }
pre { font-size: 12px; background: #fff; border: 1px solid #e5e7eb; padding: 8px; overflow-x: auto; }
`;

export function renderReport(result: SuiteResult): string {
  const { machine: m, settings: s } = result;
  const settings = [
    `database: ${s.database}`,
    `redis: ${s.redis}`,
    ...(s.url === null ? [] : [`url: ${s.url}`]),
    `${intFmt.format(s.links)} links`,
    `Zipf s = ${s.zipfS}`,
    `${s.secondsPerRun} s per run`,
    `${s.connections} connections`,
  ].join(' · ');
  const limited = result.runs.some((r) => r.generatorLimited !== undefined);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>shortener load suite · ${escapeHtml(result.startedAt)}</title><style>${CSS}</style></head>
<body>
<h1>shortener load suite</h1>
<p class="meta">Started ${escapeHtml(result.startedAt)} · took ${fmtDuration(result.durationSeconds)}
 · <code>${escapeHtml(s.command)}</code></p>
<p class="meta">${escapeHtml(`${m.cpu} · ${m.cores} cores · ${m.memoryGiB} GiB · ${m.os} · node ${m.node}`)}</p>
<p class="meta">${escapeHtml(settings)}</p>
<p class="meta">${escapeHtml(`load generator: ${s.generator} · ${s.cpus}`)}</p>
<h2>Targets</h2>
${targetsTable(result.targets)}
${listSection(result.runs)}
<h2>Throughput</h2>
${throughputChart(result.runs)}
<h2>Latency</h2>
${latencyChart(result.runs)}
<h2>All runs</h2>
${runsTable(result.runs)}
${limited ? `<p class="muted">${escapeHtml(LIMIT_LEGEND)}</p>` : ''}
<h2>How to read this</h2>
<p>Read the ratios between runs measured side by side in the same suite run (service against its baseline or naive variant);
the absolute numbers, taken on a shared 2-core machine, do not carry over to anywhere else. The load generator shares the CPU
with the server, so a server can look slower simply because the client ate the core (see the CPU columns). The
<em>ceiling</em> run is the load generator against a server that does no HTTP work: nothing measured here can go faster than it.
A rate marked ≥ is generator-limited (the generator used 90 % of its core or more, or the run came within 10 % of the
ceiling): the server could have answered more. wrk counts responses as 2xx/3xx or not, not by status.</p>
</body></html>
`;
}

// Rows shorter than the header let their last cell run on unpadded (a skipped run's reason).
export function padColumns(rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string {
  const widths: number[] = [];
  for (const row of rows) {
    const full = row.length >= (rows[0]?.length ?? 0);
    row.forEach((cell, i) => {
      if (full || i < row.length - 1) widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => {
        if (row.length < widths.length && i === row.length - 1) return cell;
        return rightAligned.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0);
      })
      .join('  ')
      .trimEnd();
  const [header, ...body] = rows;
  if (header === undefined) return '';
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function terminalRows(r: RunResult): string[][] {
  if (r.skipped !== undefined) return [[r.label, `skipped: ${r.skipped}`]];
  const lat = hasLatency(r);
  const ms = (v: number): string => (lat ? fmtMs(v) : '—');
  const row = [
    r.label,
    r.generator === 'wrk' ? 'wrk' : r.generator === 'autocannon' ? 'ac' : '—',
    fmtRps(r),
    ms(r.latency.p50),
    ms(r.latency.p99),
    ms(r.latency.p999),
    fmtStatuses(r.statuses),
    intFmt.format(r.errors),
    `${fmtCpu(r.cpu.client)} / ${fmtCpu(r.cpu.server)}`,
    runNote(r),
  ];
  // A short row spans the rest of the line, so the memory and storage fields sit under their run.
  return [
    row,
    ...(r.memory === undefined ? [] : [['', `memory: ${fmtMemory(r)}`]]),
    ...(r.storage === undefined ? [] : describeStorage(r.storage).map((line) => ['', line])),
    ...(r.list === undefined ? [] : describeList(r.list).map((line) => ['', line])),
  ];
}

export function renderTable(result: SuiteResult): string {
  const runs = padColumns(
    [
      ['run', 'gen', 'req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'statuses', 'errors', 'cpu client / server', 'note'],
      // The list's shapes have a table of their own, below.
      ...result.runs.filter((run) => !isListShape(run)).flatMap(terminalRows),
    ],
    new Set([2, 3, 4, 5, 7]),
  );
  const shapes = listRows(result.runs);
  const list =
    shapes.length === 0
      ? ''
      : `\nlist: one workspace's links, by shape\n${padColumns([LIST_HEADERS, ...shapes], new Set([1, 2, 3, 4, 5, 6, 7]))}\n`;
  const limited = result.runs.some((r) => r.generatorLimited !== undefined);
  const head = `load generator: ${result.settings.generator}\n${result.settings.cpus}\n\n`;
  const targets = padColumns(
    [['verdict', 'target', 'value', 'detail'], ...result.targets.map((t) => [t.verdict, t.name, t.value, t.detail ?? ''])],
    new Set([2]),
  );
  return `${head}${runs}\n${limited ? `${LIMIT_LEGEND}\n` : ''}${list}\ntargets: ${verdictSummary(result.targets)}\n${targets}\n`;
}
