// The fleet report's timeline (load/fleet/report.ts): requests, error rate and latency second by
// second in three SVG panels over one time axis, each fault window a labelled band across them.

import { SVG_W, escapeHtml, intFmt, svgOpen } from '../report/format.ts';
import type { FaultWindow, FleetResult, Second } from './types.ts';

const REQUESTS_COLOUR = '#2563eb';
const ERROR_COLOUR = '#dc2626';
const DOCUMENTED_COLOUR = '#f59e0b';
const P99_COLOUR = '#f59e0b';
const P50_COLOUR = '#16a34a';
const BAND_COLOUR = '#64748b';
const GRID_COLOUR = '#e2e8f0';
const AXIS_COLOUR = '#64748b';
const MUTED_TEXT = '#475569';

const PLOT_LEFT = 64;
const PLOT_RIGHT = SVG_W - 20;
const LABEL_ROW_H = 14;
const MAX_LABEL_ROWS = 3;
// What a character of the 12px system-ui labels takes, on average: enough to keep labels apart.
const CHAR_W = 6.4;
// Log axis floor: a healthy second's latency sits under it, and log(0) has no place on the axis.
const MIN_MS = 1;

type X = (second: number) => number;

interface Panel {
  readonly top: number;
  readonly height: number;
}

const bottomOf = (panel: Panel): number => panel.top + panel.height;
const f1 = (v: number): string => v.toFixed(1);

/** Seconds in order: the chart's lines and the text's lines run left to right, top to bottom. */
export function sortedTimeline(timeline: readonly Second[]): Second[] {
  return [...timeline].sort((a, b) => a.second - b.second);
}

/** Whether a fault window covers any part of second `s` (the interval [s, s + 1)). */
export function covers(fault: FaultWindow, s: number): boolean {
  return fault.start < s + 1 && fault.end > s;
}

export function fmtSeconds(v: number): string {
  return Number.isInteger(v) ? intFmt.format(v) : v.toFixed(1);
}

export function fmtRate(rate: number): string {
  return `${(rate * 100).toFixed(2)} %`;
}

// Three significant digits drop any float noise of a power of ten.
function fmtPctTick(v: number): string {
  return `${Number(v.toPrecision(3))} %`;
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

/** Ticks from 0 to a round top at or above `max`, about `count` steps. */
function linearTicks(max: number, count: number): number[] {
  const step = niceStep((max > 0 ? max : 1) / count);
  const top = Math.max(1, Math.ceil(max / step)) * step;
  return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
}

function xScale(seconds: number): X {
  const span = Math.max(1, seconds);
  return (t) => PLOT_LEFT + (Math.min(Math.max(t, 0), span) / span) * (PLOT_RIGHT - PLOT_LEFT);
}

interface LabelSpot {
  readonly fault: FaultWindow;
  readonly row: number;
  readonly anchor: 'start' | 'end';
  /** The label, cut short with an ellipsis when no row had room for all of it. */
  readonly text: string;
  /** Where the text starts (anchor start) or ends (anchor end). */
  readonly x: number;
  readonly span: readonly [number, number];
  /** Where the marker runs down from the label to its band, through every row below the label's. */
  readonly marker: number;
}

// Labels sit above the panels, so they may run over the column of the y axis' figures and into the right margin.
const LABEL_LEFT = 4;
const LABEL_RIGHT = SVG_W - 4;
const LABEL_GAP = 8;

const within = (span: readonly [number, number], x: number): boolean => x >= span[0] && x <= span[1];

/** The room for a label's text on `row`, from its anchor to the next label's text or the edge; -1 when the anchor is inside another label. */
function textRoom(placed: readonly LabelSpot[], row: number, from: number, anchor: 'start' | 'end'): number {
  const same = placed.filter((p) => p.row === row);
  if (same.some((p) => within(p.span, from))) return -1;
  if (anchor === 'start') return Math.min(LABEL_RIGHT, ...same.map((p) => p.span[0]).filter((a) => a > from)) - from - LABEL_GAP;
  return from - Math.max(LABEL_LEFT, ...same.map((p) => p.span[1]).filter((b) => b < from)) - LABEL_GAP;
}

/** Whether a label would cross a marker: another's through its text, or its own through a label below. The white halo of the labels keeps such crossings legible, so they are only avoided when possible. */
function crossesMarker(placed: readonly LabelSpot[], row: number, span: readonly [number, number], marker: number): boolean {
  return placed.some((p) => (p.row < row && within(span, p.marker)) || (p.row > row && within(p.span, marker)));
}

function fitText(text: string, room: number): string {
  return text.length * CHAR_W <= room ? text : `${text.slice(0, Math.max(1, Math.floor(room / CHAR_W) - 1))}…`;
}

function labelSpot(fault: FaultWindow, row: number, anchor: 'start' | 'end', marker: number, room: number): LabelSpot {
  const text = fitText(fault.label, room);
  const width = text.length * CHAR_W;
  const x = anchor === 'start' ? marker + 4 : marker - 4;
  return { fault, row, anchor, text, x, span: anchor === 'start' ? [x, x + width] : [x - width, x], marker };
}

/** Where one label goes: right of its band's left edge if a row has room for it (a row where it crosses no marker first), else left of the edge, else where there is most room, cut short. */
function placeLabel(placed: readonly LabelSpot[], fault: FaultWindow, x: X): LabelSpot {
  const marker = x(fault.start);
  const width = fault.label.length * CHAR_W;
  const rows = Array.from({ length: MAX_LABEL_ROWS }, (_, row) => row);
  const candidates = (['start', 'end'] as const).flatMap((anchor) =>
    rows.map((row) => ({ row, anchor, room: textRoom(placed, row, anchor === 'start' ? marker + 4 : marker - 4, anchor) })),
  );
  const fits = candidates.filter((c) => c.room >= width).map((c) => labelSpot(fault, c.row, c.anchor, marker, c.room));
  const clean = fits.find((spot) => spot.anchor === 'start' && !crossesMarker(placed, spot.row, spot.span, marker));
  const best =
    clean ??
    fits.find((spot) => spot.anchor === 'start') ??
    fits.find((spot) => !crossesMarker(placed, spot.row, spot.span, marker)) ??
    fits[0];
  if (best !== undefined) return best;
  // Room for more characters, not a pixel more, is what makes a later candidate better.
  const roomiest = candidates.reduce((a, b) => (Math.floor(b.room / CHAR_W) > Math.floor(a.room / CHAR_W) ? b : a));
  return labelSpot(fault, roomiest.row, roomiest.anchor, marker, roomiest.room);
}

function placeLabels(faults: readonly FaultWindow[], x: X): LabelSpot[] {
  const placed: LabelSpot[] = [];
  for (const fault of [...faults].sort((a, b) => a.start - b.start)) placed.push(placeLabel(placed, fault, x));
  return placed;
}

/** One fault window: a shaded band across every panel, and a marker from its label's row down to the band. */
function faultBand(spot: LabelSpot, x: X, labelsTop: number, top: number, bottom: number): string {
  const { fault } = spot;
  const x0 = x(fault.start);
  const w = Math.max(2, x(fault.end) - x0);
  const tooltip = `${fault.label} (${fault.name}): ${fmtSeconds(fault.start)}–${fmtSeconds(fault.end)} s`;
  return (
    `<g class="fault" data-fault="${escapeHtml(fault.name)}"><title>${escapeHtml(tooltip)}</title>` +
    `<rect class="fault-band" x="${f1(x0)}" y="${top}" width="${f1(w)}" height="${bottom - top}" fill="${BAND_COLOUR}" fill-opacity="0.14"/>` +
    `<line x1="${f1(x0)}" y1="${labelBaseline(spot, labelsTop) - 10}" x2="${f1(x0)}" y2="${bottom}" stroke="${BAND_COLOUR}" stroke-dasharray="3 2"/></g>`
  );
}

const labelBaseline = (spot: LabelSpot, labelsTop: number): number => labelsTop + 11 + spot.row * LABEL_ROW_H;

// Drawn after every marker, with a white halo: a marker that has to cross a label passes behind it.
function faultLabel(spot: LabelSpot, labelsTop: number): string {
  return (
    `<text class="fault-label" data-fault="${escapeHtml(spot.fault.name)}" x="${f1(spot.x)}" y="${labelBaseline(spot, labelsTop)}" ` +
    `text-anchor="${spot.anchor}" fill="#334155" stroke="#fff" stroke-width="4" stroke-linejoin="round" paint-order="stroke">` +
    `<title>${escapeHtml(spot.fault.label)}</title>${escapeHtml(spot.text)}</text>`
  );
}

/** Vertical gridlines through every panel and the seconds under the last one: every 10 s, every 30 s past 300 s. */
function xAxis(seconds: number, x: X, top: number, bottom: number): string {
  const step = seconds > 300 ? 30 : 10;
  const parts: string[] = [];
  for (let t = 0; t <= seconds; t += step) {
    const tx = f1(x(t));
    parts.push(
      `<line x1="${tx}" y1="${top}" x2="${tx}" y2="${bottom}" stroke="${GRID_COLOUR}"/>`,
      `<text x="${tx}" y="${bottom + 15}" text-anchor="middle" fill="${MUTED_TEXT}">${t}</text>`,
    );
  }
  parts.push(`<text x="${PLOT_RIGHT}" y="${bottom + 31}" text-anchor="end" fill="${MUTED_TEXT}">seconds since the traffic started</text>`);
  return parts.join('');
}

/** Horizontal gridlines with their values at the left of a panel. */
function yGrid(panel: Panel, ticks: readonly { readonly y: number; readonly label: string }[]): string {
  return ticks
    .map(
      ({ y, label }) =>
        `<line x1="${PLOT_LEFT}" y1="${f1(y)}" x2="${PLOT_RIGHT}" y2="${f1(y)}" stroke="${GRID_COLOUR}"/>` +
        `<text x="${PLOT_LEFT - 6}" y="${f1(y + 4)}" text-anchor="end" fill="${MUTED_TEXT}">${escapeHtml(label)}</text>`,
    )
    .concat(
      `<line x1="${PLOT_LEFT}" y1="${panel.top}" x2="${PLOT_LEFT}" y2="${bottomOf(panel)}" stroke="${AXIS_COLOUR}"/>` +
        `<line x1="${PLOT_LEFT}" y1="${bottomOf(panel)}" x2="${PLOT_RIGHT}" y2="${bottomOf(panel)}" stroke="${AXIS_COLOUR}"/>`,
    )
    .join('');
}

/** A panel's title above its top-left corner, its colours after it, a note on the right. */
function panelTitle(panel: Panel, title: string, items: readonly (readonly [string, string])[], note: string): string {
  const y = panel.top - 7;
  let x = PLOT_LEFT + title.length * 7 + 16;
  const swatches = items.map(([colour, text]) => {
    const item =
      `<rect x="${f1(x)}" y="${y - 10}" width="12" height="12" fill="${colour}" rx="2"/>` +
      `<text x="${f1(x + 17)}" y="${y}">${escapeHtml(text)}</text>`;
    x += 32 + text.length * CHAR_W;
    return item;
  });
  return (
    `<text x="${PLOT_LEFT}" y="${y}" font-weight="600" fill="${MUTED_TEXT}">${escapeHtml(title)}</text>${swatches.join('')}` +
    `<text x="${PLOT_RIGHT}" y="${y}" text-anchor="end" fill="${MUTED_TEXT}">${escapeHtml(note)}</text>`
  );
}

function requestsPanel(timeline: readonly Second[], x: X, panel: Panel): string {
  const ticks = linearTicks(Math.max(0, ...timeline.map((s) => s.requests)), 4);
  const top = ticks.at(-1) ?? 1;
  const y = (v: number): number => bottomOf(panel) - (v / top) * panel.height;
  const points = timeline.map((s) => `${f1(x(s.second + 0.5))},${f1(y(s.requests))}`);
  const first = timeline[0];
  const last = timeline.at(-1);
  const area =
    first === undefined || last === undefined
      ? ''
      : `<path d="M${f1(x(first.second + 0.5))} ${bottomOf(panel)}L${points.join('L').replaceAll(',', ' ')}` +
        `L${f1(x(last.second + 0.5))} ${bottomOf(panel)}Z" fill="${REQUESTS_COLOUR}" fill-opacity="0.15"/>`;
  return (
    panelTitle(panel, 'requests per second', [[REQUESTS_COLOUR, 'requests started']], 'counted in the second they started') +
    yGrid(
      panel,
      ticks.map((t) => ({ y: y(t), label: intFmt.format(t) })),
    ) +
    area +
    `<polyline data-series="requests" points="${points.join(' ')}" fill="none" stroke="${REQUESTS_COLOUR}" stroke-width="1.5" stroke-linejoin="round"/>`
  );
}

function errorRate(s: Second): number {
  return s.requests > 0 ? s.errors / s.requests : 0;
}

/** A log scale of error rates in %, from a decade at or below the smallest rate seen (0.01 % at most) to 100 %. */
function errorScale(timeline: readonly Second[], panel: Panel): { y: (pct: number) => number; exponents: number[] } {
  const rates = timeline.filter((s) => s.errors > 0).map((s) => errorRate(s) * 100);
  const minExp = Math.min(-2, Math.floor(Math.log10(Math.min(...rates, 1))));
  const span = 2 - minExp;
  const y = (pct: number): number => bottomOf(panel) - ((Math.log10(Math.max(pct, 10 ** minExp)) - minExp) / span) * panel.height;
  return { y, exponents: Array.from({ length: span + 1 }, (_, i) => minExp + i) };
}

/** One second's error bar, and in front of it the bar of its documented 503s (same scale, so never taller); at least 3 px tall. */
function errorBar(s: Second, x: X, panel: Panel, y: (pct: number) => number): string {
  const x0 = x(s.second);
  const slot = x(s.second + 1) - x0;
  const w = Math.max(1, slot > 4 ? slot - 1 : slot);
  const bottom = bottomOf(panel);
  const bar = (count: number, colour: string): string => {
    const h = Math.max(3, bottom - y((count / s.requests) * 100));
    return `<rect x="${f1(x0)}" y="${f1(bottom - h)}" width="${f1(w)}" height="${f1(h)}" fill="${colour}"/>`;
  };
  const tooltip =
    `${s.second} s: ${intFmt.format(s.errors)} errors of ${intFmt.format(s.requests)} requests (${fmtRate(errorRate(s))}), ` +
    `${intFmt.format(s.documented503)} documented 503s`;
  return (
    `<g class="error-bar"><title>${escapeHtml(tooltip)}</title>${bar(s.errors, ERROR_COLOUR)}` +
    `${s.documented503 > 0 ? bar(s.documented503, DOCUMENTED_COLOUR) : ''}</g>`
  );
}

// A scale of its own, and a log one: at the requests' scale 1 % of them would be a pixel high, and on a linear scale a
// second of 30 % errors would flatten the seconds of 0.1 %.
function errorPanel(timeline: readonly Second[], x: X, panel: Panel): string {
  const { y, exponents } = errorScale(timeline, panel);
  const errors = timeline.reduce((sum, s) => sum + s.errors, 0);
  const note = errors === 0 ? 'no errors' : `${intFmt.format(errors)} errors in all · log scale`;
  return (
    panelTitle(
      panel,
      'errors, % of the second’s requests',
      [
        [ERROR_COLOUR, 'errors (5xx, 4xx, no answer)'],
        [DOCUMENTED_COLOUR, 'of which documented 503'],
      ],
      note,
    ) +
    yGrid(
      panel,
      exponents.map((e) => ({ y: y(10 ** e), label: fmtPctTick(10 ** e) })),
    ) +
    timeline
      .filter((s) => s.errors > 0 && s.requests > 0)
      .map((s) => errorBar(s, x, panel, y))
      .join('')
  );
}

/** A line through the points, lifted where a point is missing (a second without requests has no latency). */
function gappedPath(points: readonly (readonly [number, number] | null)[]): string {
  let pen = false;
  let d = '';
  for (const p of points) {
    if (p === null) pen = false;
    else {
      d += `${pen ? 'L' : 'M'}${f1(p[0])} ${f1(p[1])}`;
      pen = true;
    }
  }
  return d;
}

function latencyPanel(timeline: readonly Second[], x: X, panel: Panel): string {
  const maxMs = Math.max(MIN_MS, ...timeline.map((s) => s.p99Ms));
  const maxExp = Math.max(2, Math.ceil(Math.log10(maxMs)));
  const y = (ms: number): number => bottomOf(panel) - (Math.log10(Math.max(ms, MIN_MS)) / maxExp) * panel.height;
  const series = (pick: (s: Second) => number) =>
    gappedPath(timeline.map((s) => (s.requests > 0 ? ([x(s.second + 0.5), y(pick(s))] as const) : null)));
  const ticks = Array.from({ length: maxExp + 1 }, (_, e) => ({ y: y(10 ** e), label: intFmt.format(10 ** e) }));
  return (
    panelTitle(
      panel,
      'latency per second',
      [
        [P99_COLOUR, 'p99'],
        [P50_COLOUR, 'p50'],
      ],
      'ms, log scale; under 1 ms drawn at 1 ms',
    ) +
    yGrid(panel, ticks) +
    `<path data-series="p50" d="${series((s) => s.p50Ms)}" fill="none" stroke="${P50_COLOUR}" stroke-opacity="0.6" stroke-width="1.2" stroke-linejoin="round"/>` +
    `<path data-series="p99" d="${series((s) => s.p99Ms)}" fill="none" stroke="${P99_COLOUR}" stroke-width="2" stroke-linejoin="round"/>`
  );
}

/** The run second by second: requests, error rate and latency in three panels over one time axis, each fault window a band across them. */
export function timelineChart(result: FleetResult): string {
  const timeline = sortedTimeline(result.timeline);
  const x = xScale(result.seconds);
  const spots = placeLabels(result.faults, x);
  const rows = Math.max(1, ...spots.map((s) => s.row + 1));
  const labelsTop = 6;
  const requests: Panel = { top: labelsTop + rows * LABEL_ROW_H + 26, height: 170 };
  const errors: Panel = { top: bottomOf(requests) + 30, height: 100 };
  const latency: Panel = { top: bottomOf(errors) + 30, height: 150 };
  const bottom = bottomOf(latency);
  const title =
    `Timeline of the fleet run over ${result.seconds} s: requests, error rate and latency per second, ` +
    `with ${result.faults.length} fault window${result.faults.length === 1 ? '' : 's'}`;
  return (
    svgOpen(bottom + 42, title) +
    spots.map((spot) => faultBand(spot, x, labelsTop, requests.top, bottom)).join('') +
    spots.map((spot) => faultLabel(spot, labelsTop)).join('') +
    xAxis(result.seconds, x, requests.top, bottom) +
    requestsPanel(timeline, x, requests) +
    errorPanel(timeline, x, errors) +
    latencyPanel(timeline, x, latency) +
    '</svg>'
  );
}
