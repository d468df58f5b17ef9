// Group commit against one INSERT per request: links created per second, side by side, same run.
//
//   npm run load [-- --seconds 10 --connections 100 --rounds 2]
//
// Each variant runs as its own process on a fresh database (created on DATABASE_URL's server,
// dropped at the end); autocannon runs here. Rounds alternate between the variants so that
// drift of this noisy machine hits both alike; the ratio is what to read, not the absolute rate.

import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createTestDatabase } from '../test/helpers/db.ts';
import { startServer } from '../test/helpers/server-process.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '2' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

const variants = [
  { name: 'group commit (write queue)', script: new URL('../src/server.ts', import.meta.url).pathname },
  { name: 'one INSERT per request', script: new URL('./naive-create-server.ts', import.meta.url).pathname },
] as const;

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}
const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));

for (let round = 0; round < rounds; round++) {
  for (const variant of variants) {
    const database = await createTestDatabase('bench_write');
    let server: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      server = await startServer(
        { DATABASE_URL: database.url, LOG_LEVEL: 'info', BASE_URL: 'https://sho.rt', DB_POOL_MAX: '10' },
        30_000,
        variant.script,
      );
      const result = await autocannon({
        url: `${server.url}/links`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/campaign/landing?utm_source=sms' }),
        connections,
        duration: seconds,
      });
      const sample = {
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        errors: result.errors + result.timeouts,
        non2xx: result.non2xx,
      };
      samples.get(variant.name)?.push(sample);
      console.error(`round ${round + 1}: ${variant.name}: ${Math.round(sample.rps)} links/s, p99 ${sample.p99} ms`);
    } finally {
      server?.child.kill('SIGTERM');
      await server?.exited;
      await database.drop();
    }
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const summary = variants.map((v) => {
  const s = samples.get(v.name) ?? [];
  return {
    variant: v.name,
    'links/s': Math.round(mean(s.map((x) => x.rps))),
    'p50 ms': mean(s.map((x) => x.p50)),
    'p99 ms': mean(s.map((x) => x.p99)),
    'errors + non-2xx': s.reduce((n, x) => n + x.errors + x.non2xx, 0),
  };
});
console.table(summary);
const [queued, naive] = summary;
if (queued !== undefined && naive !== undefined) {
  console.log(
    `group commit / one INSERT per request = ${(queued['links/s'] / naive['links/s']).toFixed(2)}x ` +
      `(${connections} connections, ${seconds} s x ${rounds} rounds each)`,
  );
}
