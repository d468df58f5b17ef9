import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import type { DailyClicks } from './api.ts';

// People, bots and visitors differ by colour and by line style (solid, dashed, dotted), so the chart reads without colour too.
const PEOPLE = '#1d4ed8';
const BOTS = '#b45309';
const VISITORS = '#047857';
const HEIGHT = 260;
const DAY = 86_400;
const shortDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * Clicks per UTC day as a uPlot line chart, with the estimated visitors. It is drawn on a canvas, so it is hidden from assistive technology:
 * the panel around it gives the totals in text and the same numbers as a table.
 */
export function ClicksChart({ daily }: { daily: DailyClicks[] }) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (element === null) return undefined;
    const data: uPlot.AlignedData = [
      daily.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000),
      daily.map((d) => d.clicks),
      daily.map((d) => d.botClicks),
      daily.map((d) => d.visitors),
    ];
    let chart: uPlot | null = null;
    let resize: ResizeObserver | null = null;
    let cancelled = false;
    import('./uplot-lib.ts').then(
      ({ uPlot }) => {
        if (cancelled) return;
        chart = new uPlot(chartOptions(uPlot, chartWidth(element), daily.length), data, element);
        const drawn = chart;
        resize = new ResizeObserver(() => drawn.setSize({ width: chartWidth(element), height: HEIGHT }));
        resize.observe(element);
      },
      (error: unknown) => console.error('The chart could not be loaded', error),
    );
    return () => {
      cancelled = true;
      resize?.disconnect();
      chart?.destroy();
    };
  }, [daily]);

  return <div class="chart" ref={container} aria-hidden="true" />;
}

function chartWidth(element: HTMLElement): number {
  return Math.max(element.clientWidth, 200);
}

function chartOptions(plot: typeof uPlot, width: number, days: number): uPlot.Options {
  const axis = { stroke: '#3d4650', grid: { stroke: '#e6e9ed' }, ticks: { stroke: '#c3c9d0' } };
  return {
    width,
    height: HEIGHT,
    // The days are UTC days: show them as such whatever the browser's zone.
    tzDate: (ts) => plot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    cursor: { drag: { x: false, y: false } },
    // The series' names and colours only: the numbers are in the table below, not in a legend that reads "--" until hovered.
    legend: { live: false },
    scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
    axes: [
      {
        ...axis,
        // Whole days only: the data has one point per UTC day.
        space: 56,
        incrs: [DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY],
        values: (_u, splits) => splits.map((ts) => shortDay.format(new Date(ts * 1000))),
      },
      { ...axis, values: (_u, ticks) => ticks.map(integerLabel) },
    ],
    series: [
      { value: '{YYYY}-{MM}-{DD}' },
      { label: 'People', stroke: PEOPLE, width: 2, fill: 'rgba(29, 78, 216, 0.08)', points: { show: days <= 45 } },
      { label: 'Bots', stroke: BOTS, width: 2, dash: [6, 4], points: { show: days <= 45 } },
      { label: 'Visitors', stroke: VISITORS, width: 2, dash: [2, 3], points: { show: days <= 45 } },
    ],
  };
}

function integerLabel(value: number): string {
  return Number.isInteger(value) ? String(value) : '';
}
