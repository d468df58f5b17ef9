// The list scenario's shapes as a table of their own (load/scenarios/list.ts): the terminal's rows,
// and the page's section with every plan.

import type { ListPlan, RunResult } from '../types.ts';
import { describeList, fmtRps, slowestPlan } from './describe.ts';
import { escapeHtml, fmtMs, intFmt, td } from './format.ts';

export const isListShape = (run: RunResult) => run.listShape !== undefined;

export const LIST_HEADERS = [
  'shape',
  'req/s',
  'p50 ms',
  'p95 ms',
  'p99 ms',
  'max ms',
  'failed',
  'rows matched',
  'plan: indexes (ms in Postgres)',
];

/** Responses other than 200, and requests without an answer. */
function failedRequests(run: RunResult): string {
  const failed = run.errors + Object.entries(run.statuses).reduce((sum, [status, n]) => sum + (status === '200' ? 0 : n), 0);
  return intFmt.format(failed);
}

/** One row per list shape, and one over all of them: percentiles, the rows its filter matches, the plan's indexes. */
export function listRows(runs: readonly RunResult[]): string[][] {
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

/** For a shape of several paths, which one a plan is: its query string without the page size. */
function pathValues(run: RunResult, plan: ListPlan): string {
  if ((run.listShape?.paths.length ?? 0) < 2) return '';
  const params = new URL(plan.path, 'http://list.invalid').searchParams;
  const value = [...params].filter(([name]) => name !== 'limit' && name !== 'cursor' && name !== 'sort');
  return value.length === 0 ? '' : ` for ${value.map(([name, v]) => `${name}=${v}`).join('&')}`;
}

export function listSection(runs: readonly RunResult[]): string {
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
