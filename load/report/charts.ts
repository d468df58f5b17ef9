// The page's two charts, inline SVG: throughput and latency percentiles per run, grouped by scenario.

import type { RunResult } from '../types.ts';
import { hasLatency } from './describe.ts';
import { escapeHtml, fmtMs, intFmt, SVG_W, svgOpen } from './format.ts';

const LABEL_W = 300;
const SERVICE_COLOUR = '#2563eb';
const OTHER_COLOUR = '#f59e0b';
const PCT_COLOURS = { p50: '#16a34a', p99: '#f59e0b', p999: '#dc2626' } as const;
// Log axis floor: sub-10 µs latencies are noise, and log(0) has no place on the axis.
const MIN_MS = 0.01;

// Long labels would run into the bars; the full text stays available as a tooltip.
function svgLabel(x: number, y: number, text: string, maxChars = 44): string {
  const shown = text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
  return `<text x="${x}" y="${y}" text-anchor="end"><title>${escapeHtml(text)}</title>${escapeHtml(shown)}</text>`;
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

export function throughputChart(runs: readonly RunResult[]): string {
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

export function latencyChart(runs: readonly RunResult[]): string {
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
