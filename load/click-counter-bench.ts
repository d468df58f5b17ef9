// What counting a click costs the redirect path: ClickCounter.count per call, in nanoseconds.
//
//   node load/click-counter-bench.ts
//
// Each call gets a code and a User-Agent made fresh from bytes, as the HTTP parser hands them to
// the listener (a fresh string has no cached hash, so the Map lookups hash it again). The codes
// are drawn by Zipf rank over 100k links, as in the load suite, from 40 User-Agent strings (a
// third of them bots). The same loop without the count is timed too, and subtracted.

import { ClickCounter } from '../src/analytics/click-counter.ts';
import { randomCodes, seededRandom, zipfSampler } from './traffic.ts';

const CALLS = 2_000_000;
const LINKS = 100_000;
const random = seededRandom(7);
const codes = randomCodes(LINKS, 7, random, new Set());
const agents = Array.from({ length: 40 }, (_, i) =>
  i % 3 === 0
    ? `Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html) crawler/${i}`
    : `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.${i}.0 Safari/537.36`,
);
const rank = zipfSampler(LINKS, 1.1, random);
// Bytes of each call's code and User-Agent, laid out as a parser would find them.
const codeBytes = Buffer.from(Array.from({ length: CALLS }, () => codes[rank()] as string).join(''), 'latin1');
const agentBytes = agents.map((agent) => Buffer.from(agent, 'latin1'));

function run(count: boolean): number {
  // The flusher takes the map every 5 s; a map that only grows would measure something else.
  const counter = new ClickCounter(1_000_000, () => {});
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    const code = codeBytes.toString('latin1', i * 7, i * 7 + 7);
    const bytes = agentBytes[i % agentBytes.length] as Buffer;
    const agent = bytes.toString('latin1');
    if (count) counter.count(code, agent);
    else sink += code.length + agent.length;
  }
  const ns = Number(process.hrtime.bigint() - started) / CALLS;
  if (sink === -1) console.log(sink);
  return ns;
}

const rounds: { bare: number; counted: number }[] = [];
for (let round = 0; round < 6; round++) rounds.push({ bare: run(false), counted: run(true) });
// The first rounds warm the JIT up.
const kept = rounds.slice(2);
const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const cost = median(kept.map((r) => r.counted - r.bare));
console.log(
  JSON.stringify({
    calls: CALLS,
    nsPerCallBare: median(kept.map((r) => r.bare)),
    nsPerCallCounted: median(kept.map((r) => r.counted)),
    nsPerClick: cost,
  }),
);
