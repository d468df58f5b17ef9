// The fleet run's report (load/fleet/report.ts) on a small run made by hand: 40 seconds, two fault
// windows, one failed check whose example holds markup. The page must draw a band per fault where
// its seconds are, a point per second, and escape everything the run recorded; the terminal's
// timeline must mark exactly the seconds a window covers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderFleetReport, renderTimelineText } from '../../load/fleet/report.ts';
import type { FleetResult, Second } from '../../load/fleet/types.ts';

const SECONDS = 40;
const KILL = { name: 'kill-instance', label: 'SIGKILL of app-1 (restarted)', start: 10, end: 15 };
const FAILOVER = { name: 'redis-failover', label: 'Redis master killed, replica promoted', start: 25.5, end: 31 };
// No request started in this second: its latency is missing, not 0 ms.
const SILENT_SECOND = 12;
const SCRIPT_EXAMPLE = '33.4 s GET /<script>alert(1)</script> → 500';

function second(s: number): Second {
  if (s === SILENT_SECOND) return { second: s, requests: 0, errors: 0, documented503: 0, p99Ms: 0, p50Ms: 0 };
  const inKill = s >= 10 && s < 15;
  const inFailover = s >= 25 && s < 31;
  // Errors at 1 % and below: they must still show.
  const errors = inKill ? 18 : s === 27 ? 2 : 0;
  return {
    second: s,
    requests: s === 20 ? 2_400 : 1_800 + (s % 5) * 10,
    errors,
    documented503: s === 27 ? 1 : 0,
    p99Ms: inKill ? 900 : inFailover ? 40 : 8.1,
    p50Ms: 0.7,
  };
}

function fleetResult(): FleetResult {
  const timeline = Array.from({ length: SECONDS }, (_, s) => second(s));
  return {
    startedAt: '2026-07-02T10:14:03.512Z',
    command: 'npm run fleet -- --seconds 40 & echo "<b>"',
    machine: { cpu: 'AMD EPYC 7B13', cores: 2, memoryGiB: 24, os: 'Linux 6.1', node: 'v24.21.0' },
    fleet: '3 instances, HAProxy 2.6.12, Postgres 15.19 + 1 streaming standby, Redis 7.0.15 cluster',
    traffic: '32 connections, Zipf s = 1.1',
    seconds: SECONDS,
    requests: timeline.reduce((sum, s) => sum + s.requests, 0),
    acknowledgedWrites: 2_411,
    seededLinks: 500,
    faults: [KILL, FAILOVER],
    timeline,
    errorsByFault: [
      {
        fault: 'none',
        label: 'outside every window',
        seconds: 29.5,
        requests: 53_000,
        errors: 0,
        documented503: 0,
        byStatus: {},
        errorRate: 0,
        p99Ms: 8.1,
        maxStaleMs: 37,
      },
      {
        fault: 'kill-instance',
        label: KILL.label,
        seconds: 5,
        requests: 7_300,
        errors: 72,
        documented503: 0,
        byStatus: { 'no answer': 1, '502': 71 },
        errorRate: 72 / 7_300,
        p99Ms: 900,
        maxStaleMs: 0,
      },
    ],
    checks: [
      { name: 'no acknowledged write lost', ok: true, detail: '2,411 acknowledged creates, 2,411 in Postgres, 0 lost', examples: [] },
      { name: 'errors only inside fault windows', ok: false, detail: '1 error outside every window', examples: [SCRIPT_EXAMPLE] },
    ],
  };
}

const html = renderFleetReport(fleetResult());
const text = renderTimelineText(fleetResult());

/** The points of the requests line, as [x, y]. */
function requestPoints(page: string): [number, number][] {
  const points = /<polyline data-series="requests" points="([^"]*)"/.exec(page)?.[1];
  assert.ok(points !== undefined, 'the requests line is drawn');
  return points.split(' ').map((p) => {
    const [x, y] = p.split(',').map(Number);
    return [x ?? Number.NaN, y ?? Number.NaN];
  });
}

/** The x of a time on the chart, read off the requests line: its points sit in the middle of their seconds. */
function chartX(page: string): (t: number) => number {
  const [[x0], [x1]] = requestPoints(page) as [[number, number], [number, number]];
  const perSecond = x1 - x0;
  return (t) => x0 - perSecond / 2 + t * perSecond;
}

test('the page is one self-contained document: no script, nothing fetched, a described chart', () => {
  assert.match(html, /^<!doctype html>/);
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /\b(src|href)=/);
  assert.match(html, /<h1>shortener fleet test<\/h1>/);
  assert.match(html, /<svg [^>]*role="img" aria-label="Timeline of the fleet run[^"]*"/);
  assert.equal(html.match(/<svg /g)?.length, 1);
});

test('everything the run recorded is escaped: the example with <script>, the command', () => {
  assert.ok(html.includes('GET /&lt;script&gt;alert(1)&lt;/script&gt; → 500'), 'the example is shown, escaped');
  assert.ok(html.includes('<code>npm run fleet -- --seconds 40 &amp; echo &quot;&lt;b&gt;&quot;</code>'));
  assert.ok(!html.includes('<b>'));
});

test('one band per fault, with its label, over the seconds of its window', () => {
  assert.equal(html.match(/class="fault-band"/g)?.length, 2);
  const x = chartX(html);
  for (const fault of [KILL, FAILOVER]) {
    const band = new RegExp(
      `<g class="fault" data-fault="${fault.name}">.*?<rect class="fault-band" x="([\\d.]+)" y="[\\d.]+" width="([\\d.]+)"`,
    ).exec(html);
    assert.ok(band, `a band for ${fault.name}`);
    assert.ok(Math.abs(Number(band[1]) - x(fault.start)) < 0.2, `${fault.name} starts at ${fault.start} s`);
    assert.ok(Math.abs(Number(band[1]) + Number(band[2]) - x(fault.end)) < 0.2, `${fault.name} ends at ${fault.end} s`);
    const label = new RegExp(`<text class="fault-label" data-fault="${fault.name}"[^>]*>(?:<title>[^<]*</title>)?([^<]*)</text>`).exec(
      html,
    );
    assert.equal(label?.[1], fault.label);
  }
});

test('the requests line has one point per second, left to right, highest where most requests started', () => {
  const points = requestPoints(html);
  assert.equal(points.length, SECONDS);
  assert.ok(points.every(([x], i) => i === 0 || x > (points[i - 1]?.[0] ?? Infinity)));
  const highest = points.reduce((best, p, i) => (p[1] < (points[best]?.[1] ?? Infinity) ? i : best), 0);
  assert.equal(highest, 20);
  const lowest = points.reduce((best, p, i) => (p[1] > (points[best]?.[1] ?? -Infinity) ? i : best), 0);
  assert.equal(lowest, SILENT_SECOND);
});

test('the latency lines have a point for each second with requests, and a gap at the one without', () => {
  for (const series of ['p99', 'p50']) {
    const d = new RegExp(`<path data-series="${series}" d="([^"]*)"`).exec(html)?.[1] ?? '';
    assert.equal(d.match(/[ML]/g)?.length, SECONDS - 1, series);
    assert.equal(d.match(/M/g)?.length, 2, `${series} is lifted once`);
  }
});

test('every second with errors has an error bar, and 0.1 % of the requests is not dwarfed by 1 %', () => {
  const withErrors = fleetResult().timeline.filter((s) => s.errors > 0).length;
  assert.equal(html.match(/<g class="error-bar">/g)?.length, withErrors);
  const barHeight = (s: number) =>
    Number(new RegExp(`<g class="error-bar"><title>${s} s: [^<]*</title><rect [^>]*height="([\\d.]+)"`).exec(html)?.[1]);
  // Second 27: 2 errors of 1,870 requests; second 10: 18 of 1,800. On a linear scale the first would be a tenth as tall.
  assert.ok(barHeight(27) >= 0.4 * barHeight(10), `${barHeight(27)} px against ${barHeight(10)} px`);
  assert.ok(barHeight(27) >= 10, 'tall enough to see');
});

test('the checks table marks the failed check FAILED, with its examples in a details', () => {
  assert.match(html, /<td>errors only inside fault windows<\/td><td class="verdict miss">FAILED<\/td>/);
  assert.match(html, /<td>no acknowledged write lost<\/td><td class="verdict pass">ok<\/td>/);
  assert.match(html, /<details><summary>1 example<\/summary><pre>33\.4 s GET \/&lt;script&gt;/);
});

test('the errors-by-fault table: rate with two decimals, statuses in order', () => {
  assert.ok(html.includes('<td class="num bad">0.99 %</td>'), '72 of 7,300');
  assert.ok(html.includes('502:&nbsp;71, no answer:&nbsp;1'));
  assert.ok(html.includes('<td class="num">0.00 %</td>'));
});

test('the terminal timeline: one line per second, the faults named on exactly the seconds they cover', () => {
  const [timeline = '', table = '', checks = ''] = text.split('\n\n');
  const lines = timeline.split('\n');
  assert.equal(lines.length, SECONDS);
  assert.equal(lines[20], '  20 s   2,400 req   0 err  p99   8.1 ms');
  assert.equal(lines[SILENT_SECOND], '  12 s       0 req   0 err  p99     — ms  ▌kill-instance');
  lines.forEach((line, s) => {
    assert.match(line, new RegExp(`^ *${s} s `));
    assert.equal(line.includes('kill-instance'), s >= 10 && s <= 14, `second ${s}: ${line}`);
    // 25.5 to 31: half of second 25 is inside, second 31 is not.
    assert.equal(line.includes('redis-failover'), s >= 25 && s <= 30, `second ${s}: ${line}`);
  });
  assert.match(table, /^fault +seconds +requests +errors +error rate/);
  assert.match(table, /\nSIGKILL of app-1 \(restarted\) +5 +7,300 +72 +0\.99 % +0 +502: 71, no answer: 1 +900\n?/);
  assert.equal(
    checks,
    'ok   no acknowledged write lost: 2,411 acknowledged creates, 2,411 in Postgres, 0 lost\n' +
      'FAIL errors only inside fault windows: 1 error outside every window\n' +
      `       ${SCRIPT_EXAMPLE}\n`,
  );
});
