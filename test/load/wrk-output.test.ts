// The parser of wrk's output (load/wrk-output.ts), on output captured from wrk 4.1.0 (Debian's
// package) on this project's load suite: with the suite's Lua script (its `wrk-json` line from
// done()), and wrk's own text report alone, with socket errors and non-2xx/3xx answers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeLatency, parseWrkOutput } from '../../load/wrk-output.ts';

// wrk -t1 -c50 -d1s --timeout 10s --latency -s paths.lua http://127.0.0.1:40147 -- paths.txt
// (against load/go-fasthttp, one path of three unknown: its 404s are the "Non-2xx or 3xx responses").
const WITH_SCRIPT = `Running 1s test @ http://127.0.0.1:40147
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   479.88us  465.24us   6.58ms   92.23%
    Req/Sec   100.22k     9.94k  113.64k    60.00%
  Latency Distribution
     50%  362.00us
     75%  595.00us
     90%    0.88ms
     99%    2.63ms
  99621 requests in 1.00s, 8.33MB read
  Non-2xx or 3xx responses: 33208
Requests/sec:  99525.26
Transfer/sec:      8.32MB
wrk-json {"durationUs":1000962,"requests":99621,"errors":{"connect":0,"read":0,"write":0,"status":33208,"timeout":0},"latencyUs":{"mean":479.879,"max":6584,"quantiles":[[1,49],[2,64],[3,78],[4,91],[5,103],[6,114],[7,124],[8,134],[9,143],[10,151],[11,158],[12,165],[13,171],[14,178],[15,184],[16,191],[17,197],[18,202],[19,208],[20,213],[21,217],[22,222],[23,226],[24,230],[25,234],[26,237],[27,241],[28,244],[29,247],[30,251],[31,254],[32,257],[33,261],[34,264],[35,268],[36,272],[37,275],[38,279],[39,284],[40,289],[41,294],[42,300],[43,307],[44,314],[45,321],[46,329],[47,337],[48,346],[49,354],[50,362],[51,371],[52,380],[53,388],[54,397],[55,406],[56,414],[57,423],[58,432],[59,441],[60,450],[61,459],[62,469],[63,478],[64,488],[65,498],[66,507],[67,516],[68,525],[69,534],[70,543],[71,552],[72,562],[73,573],[74,583],[75,595],[76,606],[77,619],[78,631],[79,645],[80,659],[81,674],[82,691],[83,709],[84,729],[85,751],[86,772],[87,796],[88,822],[89,848],[90,876],[91,906],[92,938],[93,973],[94,1011],[95,1060],[96,1132],[97,1280],[98,1724],[99,2632],[99.1,2771],[99.2,2919],[99.3,3077],[99.4,3298],[99.5,3493],[99.6,3738],[99.7,4007],[99.8,4403],[99.9,4985],[99.91,5046],[99.92,5118],[99.93,5266],[99.94,5392],[99.95,5479],[99.96,5560],[99.97,5821],[99.98,5977],[99.99,6146],[100,6584]]}}
`;

// wrk -t1 -c20 -d1s --latency http://127.0.0.1:39111/abc, against a server that answers 404 and
// closes every third connection instead of answering.
const TEXT_WITH_ERRORS = `Running 1s test @ http://127.0.0.1:39111/abc
  1 threads and 20 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   571.94us  806.33us   7.77ms   88.74%
    Req/Sec    20.20k     6.16k   31.67k    63.64%
  Latency Distribution
     50%  261.00us
     75%  605.00us
     90%    1.49ms
     99%    4.25ms
  22088 requests in 1.10s, 0.95MB read
  Socket errors: connect 0, read 11044, write 0, timeout 0
  Non-2xx or 3xx responses: 22088
Requests/sec:  20078.28
Transfer/sec:      0.86MB
`;

test('the wrk-json line gives requests, duration, statuses, socket errors and latency in ms', () => {
  const figures = parseWrkOutput(WITH_SCRIPT);
  assert.equal(figures.requests, 99_621);
  assert.equal(figures.seconds, 1.000962);
  assert.equal(figures.non2xx3xx, 33_208);
  assert.deepEqual(figures.socketErrors, { connect: 0, read: 0, write: 0, timeout: 0 });
  assert.deepEqual(figures.latency, { mean: 0.48, p50: 0.362, p90: 0.876, p99: 2.632, p999: 4.985, max: 6.584 });
  assert.equal(figures.quantiles.length, 118);
  assert.deepEqual(figures.quantiles.at(-1), [100, 6.584]);
});

test('the text report alone still gives the figures (p99.9 is then the maximum, an upper bound)', () => {
  const withoutLine = WITH_SCRIPT.split('\n')
    .filter((line) => !line.startsWith('wrk-json '))
    .join('\n');
  const figures = parseWrkOutput(withoutLine);
  assert.equal(figures.requests, 99_621);
  assert.equal(figures.seconds, 1);
  assert.equal(figures.non2xx3xx, 33_208);
  assert.deepEqual(figures.latency, { mean: 0.48, p50: 0.362, p90: 0.88, p99: 2.63, p999: 6.58, max: 6.58 });
  assert.deepEqual(figures.quantiles, []);
});

test('socket errors and non-2xx/3xx answers are read from the text report', () => {
  const figures = parseWrkOutput(TEXT_WITH_ERRORS);
  assert.equal(figures.requests, 22_088);
  assert.equal(figures.seconds, 1.1);
  assert.equal(figures.non2xx3xx, 22_088);
  assert.deepEqual(figures.socketErrors, { connect: 0, read: 11_044, write: 0, timeout: 0 });
  assert.deepEqual(figures.latency, { mean: 0.572, p50: 0.261, p90: 1.49, p99: 4.25, p999: 7.77, max: 7.77 });
});

test('anything else is refused, not read as zero requests', () => {
  assert.throws(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused\n'), /not a wrk report/);
});

test('merged runs: one run gives back its own percentiles, two are weighted by their requests', () => {
  const one = parseWrkOutput(WITH_SCRIPT);
  assert.deepEqual(mergeLatency([one]), one.latency);
  // The same distribution twice as slow, with as many requests: the median lies between the two.
  const slower = {
    ...one,
    latency: { ...one.latency, mean: one.latency.mean * 2, max: one.latency.max * 2 },
    quantiles: one.quantiles.map(([q, ms]) => [q, ms * 2] as const),
  };
  const both = mergeLatency([one, slower]);
  assert.ok(both.p50 > one.latency.p50 && both.p50 < 2 * one.latency.p50, JSON.stringify(both));
  assert.equal(both.max, 2 * one.latency.max);
  assert.equal(both.mean, 0.72);
  // The slower run's p99.9 stands above the faster one's maximum: the merged p99.9 comes from it.
  assert.ok(both.p999 > one.latency.max, JSON.stringify(both));
});
