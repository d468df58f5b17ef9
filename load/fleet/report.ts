// Turns a fleet run (load/fleet/types.ts) into one self-contained HTML page (inline CSS and SVG, no
// scripts, nothing fetched) in the look of the load suite's report (load/report/page.ts), and into a
// per-second timeline for the terminal.

import { CSS, escapeHtml, fmtDuration, fmtMs, fmtStatuses, intFmt, padColumns, td } from '../report/format.ts';
import { covers, fmtRate, fmtSeconds, sortedTimeline, timelineChart } from './timeline.ts';
import type { Check, FaultErrors, FaultWindow, FleetResult, Second } from './types.ts';

function checkRow(check: Check): string {
  const examples =
    check.examples.length === 0
      ? ''
      : `<details><summary>${check.examples.length} example${check.examples.length === 1 ? '' : 's'}</summary>` +
        `<pre>${check.examples.map(escapeHtml).join('\n')}</pre></details>`;
  return (
    `<tr>${td(check.name)}${td(check.ok ? 'ok' : 'FAILED', `verdict ${check.ok ? 'pass' : 'miss'}`)}` +
    `${td(check.detail)}<td>${examples}</td></tr>`
  );
}

function checksTable(checks: readonly Check[]): string {
  const held = checks.filter((c) => c.ok).length;
  return `<p class="summary">${held} of ${checks.length} checks held${held === checks.length ? '' : ` · ${checks.length - held} FAILED`}</p>
<table><thead><tr><th>check</th><th>result</th><th>detail</th><th>examples</th></tr></thead><tbody>${checks.map(checkRow).join('')}</tbody></table>`;
}

const FAULT_HEADERS = [
  'fault',
  'seconds',
  'requests',
  'errors',
  'error rate',
  'documented 503s',
  'errors by status',
  'p99 ms',
  'most stale ms',
];

/** A row of the errors-by-fault table, as text: the HTML and the terminal show the same cells. */
function faultCells(f: FaultErrors): string[] {
  return [
    f.label,
    fmtSeconds(f.seconds),
    intFmt.format(f.requests),
    intFmt.format(f.errors),
    fmtRate(f.errorRate),
    intFmt.format(f.documented503),
    fmtStatuses(f.byStatus),
    f.requests > 0 ? fmtMs(f.p99Ms) : '—',
    f.maxStaleMs > 0 ? fmtMs(f.maxStaleMs) : '—',
  ];
}

function faultRow(f: FaultErrors): string {
  const [label = '', ...cells] = faultCells(f);
  const numeric = cells.map((cell, i) => {
    // Column 6 of the headers (errors by status) is text; the others are figures.
    if (i === 5) return `<td>${escapeHtml(cell).replaceAll(': ', ':&nbsp;')}</td>`;
    return td(cell, (i === 2 || i === 3) && f.errors > 0 ? 'num bad' : 'num');
  });
  return `<tr><td title="${escapeHtml(f.fault)}">${escapeHtml(label)}</td>${numeric.join('')}</tr>`;
}

function faultTable(rows: readonly FaultErrors[]): string {
  if (rows.length === 0) return '<p class="muted">No errors by fault were recorded.</p>';
  const head = FAULT_HEADERS.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  return `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${rows.map(faultRow).join('')}</tbody></table></div>`;
}

export function renderFleetReport(result: FleetResult): string {
  const m = result.machine;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>shortener fleet test · ${escapeHtml(result.startedAt)}</title><style>${CSS}</style></head>
<body>
<h1>shortener fleet test</h1>
<p class="meta">Started ${escapeHtml(result.startedAt)} · ran ${fmtDuration(result.seconds)} · ${intFmt.format(result.requests)} requests ·
 ${intFmt.format(result.acknowledgedWrites)} acknowledged writes · <code>${escapeHtml(result.command)}</code></p>
<p class="meta">${escapeHtml(`${m.cpu} · ${m.cores} cores · ${m.os} · node ${m.node}`)}</p>
<p class="meta">${escapeHtml(`fleet: ${result.fleet}`)}</p>
<p class="meta">${escapeHtml(`traffic: ${result.traffic}`)}</p>
<h2>Checks</h2>
${checksTable(result.checks)}
<h2>Timeline</h2>
<div class="scroll">${timelineChart(result)}</div>
<h2>Errors by fault</h2>
${faultTable(result.errorsByFault)}
<h2>How to read this</h2>
<p>Each shaded band is one injected fault, from the moment it was injected to the moment the fleet was whole again; its label is
written above it, by its left edge. Requests, errors and latency are counted in the second the request started, so a request that
timed out during a fault shows in the second it was sent. Errors are answers with a 5xx status, a 4xx (which no request of the
mix should get; a redirect's 410 is a disabled link's answer) and requests that got no answer (reset, timeout), drawn as a share of that second's requests on a log scale, so a second with 0.1 % errors is as plain to see as
one with 30 %; the amber bar in front is the part of them that were 503s the service documents (a <code>Retry-After</code> and a
coded body), which a client is meant to retry. Latency is on a log scale from 1 ms. The checks above the chart are the properties
the run holds the fleet to: FAILED means a property was broken at least once, and its examples say where. The errors-by-fault
table adds up each window, and the time outside every window.</p>
</body></html>
`;
}

/** The terminal's timeline: one line per second, with the names of the faults that cover it. */
function timelineLines(timeline: readonly Second[], faults: readonly FaultWindow[]): string[] {
  const cells = timeline.map((s) => ({
    second: String(s.second),
    requests: intFmt.format(s.requests),
    errors: intFmt.format(s.errors),
    p99: s.requests > 0 ? fmtMs(s.p99Ms) : '—',
    faults: faults.filter((f) => covers(f, s.second)).map((f) => f.name),
  }));
  const width = (pick: (c: (typeof cells)[number]) => string, min: number) => Math.max(min, ...cells.map((c) => pick(c).length));
  const [ws, wr, we, wp] = [width((c) => c.second, 4), width((c) => c.requests, 7), width((c) => c.errors, 3), width((c) => c.p99, 5)];
  return cells.map(
    (c) =>
      `${c.second.padStart(ws)} s ${c.requests.padStart(wr)} req ${c.errors.padStart(we)} err  p99 ${c.p99.padStart(wp)} ms` +
      (c.faults.length === 0 ? '' : `  ▌${c.faults.join(', ')}`),
  );
}

function checkLines(check: Check): string[] {
  return [`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`, ...check.examples.map((e) => `       ${e}`)];
}

export function renderTimelineText(result: FleetResult): string {
  const lines = timelineLines(sortedTimeline(result.timeline), result.faults);
  const table = padColumns([FAULT_HEADERS, ...result.errorsByFault.map(faultCells)], new Set([1, 2, 3, 4, 5, 7, 8]));
  return `${lines.join('\n')}\n\n${table}\n\n${result.checks.flatMap(checkLines).join('\n')}\n`;
}
