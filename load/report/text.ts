// A load-suite result as plain-text tables for the terminal: the runs, the list's shapes, the targets.

import type { RunResult, SuiteResult } from '../types.ts';
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
import { fmtMs, fmtStatuses, intFmt, padColumns } from './format.ts';
import { isListShape, LIST_HEADERS, listRows } from './list.ts';

function terminalRows(r: RunResult): string[][] {
  if (r.skipped !== undefined) return [[r.label, `skipped: ${r.skipped}`]];
  const lat = hasLatency(r);
  const ms = (v: number): string => (lat ? fmtMs(v) : '—');
  const row = [
    r.label,
    r.generator === 'wrk' ? 'wrk' : r.generator === 'autocannon' ? 'ac' : '—',
    fmtRps(r),
    fmtPerCpu(r),
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
    ...(r.startup === undefined ? [] : [['', `startup: ${fmtStartup(r)}`]]),
    ...(r.starts === undefined ? [] : [['', `starts: ${fmtStarts(r)}`]]),
    ...(r.storage === undefined ? [] : describeStorage(r.storage).map((line) => ['', line])),
    ...(r.list === undefined ? [] : describeList(r.list).map((line) => ['', line])),
  ];
}

export function renderTable(result: SuiteResult): string {
  const runs = padColumns(
    [
      ['run', 'gen', 'req/s', 'per CPU-s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'statuses', 'errors', 'cpu client / server', 'note'],
      // The list's shapes have a table of their own, below.
      ...result.runs.filter((run) => !isListShape(run)).flatMap(terminalRows),
    ],
    new Set([2, 3, 4, 5, 6, 8]),
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
