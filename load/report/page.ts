// A load-suite result as one self-contained HTML page: inline CSS and SVG, no scripts, nothing fetched.

import type { RunResult, SuiteResult, TargetResult, Verdict } from '../types.ts';
import { latencyChart, throughputChart } from './charts.ts';
import {
  describeList,
  describeStorage,
  fmtCpu,
  fmtMemory,
  fmtPerCpu,
  fmtStarts,
  fmtStartup,
  fmtRps,
  hasLatency,
  LIMIT_LEGEND,
  runNote,
  verdictSummary,
} from './describe.ts';
import { CSS, escapeHtml, fmtDuration, fmtMs, fmtStatuses, intFmt, td } from './format.ts';
import { listSection } from './list.ts';

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
  'req per server CPU-s',
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
    td(fmtPerCpu(run), 'num'),
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
  const startup = run.startup === undefined ? '' : sub(`startup: ${fmtStartup(run)}`);
  const starts = run.starts === undefined ? '' : sub(`starts: ${fmtStarts(run)}`);
  const storage = run.storage === undefined ? '' : describeStorage(run.storage).map(sub).join('');
  const list = run.list === undefined ? '' : describeList(run.list).map(sub).join('');
  return `<tr>${head}${cells.join('')}</tr>${memory}${startup}${starts}${storage}${list}`;
}

function runsTable(runs: readonly RunResult[]): string {
  const head = RUN_HEADERS.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  return `<div class="scroll"><table class="runs"><thead><tr>${head}</tr></thead><tbody>${runs.map(runRow).join('')}</tbody></table></div>`;
}

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
