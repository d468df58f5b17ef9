// The `memory` scenario: resident memory of a process that has loaded the whole service and
// holds N links (80-character URLs) in its LRU, filled through the same `fill` the read path
// uses. Prints one JSON line. Run with --expose-gc so that the figure is live memory, not garbage.
//
//   node --expose-gc load/memory-probe.ts [--links 1000000]

import { parseArgs } from 'node:util';
import type { LinkKey } from '../src/core/domains.ts';
import { ABSENT, createLinkCache, isRedirect } from '../src/cache/link-cache.ts';
import { loadConfig } from '../src/config/config.ts';
import { createCodeCodec } from '../src/core/codes.ts';
import { createPermutation } from '../src/core/permutation.ts';
import { targetUrl } from './traffic.ts';

// The service's own modules (Fastify, pg, opossum, ...) are loaded, so that their memory counts too.
const service = await import('../src/app.ts');
if (typeof service.buildApp !== 'function') throw new Error('src/app.ts no longer exports buildApp');

const { values } = parseArgs({ options: { links: { type: 'string', default: '1000000' } } });
const links = Number(values.links);
// CACHE_MAX_BYTES counts 120 bytes + code + URL per link (~210 here): its default (512 MiB) holds
// about 2.5M of them, so it is raised for more, or the LRU would evict and hold fewer than asked.
const DEFAULT_CACHE_MAX_BYTES = 512 * 2 ** 20;
const config = loadConfig({
  CACHE_MAX_ENTRIES: String(Math.max(links, 1_000_000)),
  CACHE_MAX_BYTES: String(Math.max(DEFAULT_CACHE_MAX_BYTES, links * 256)),
});
const codec = createCodeCodec(createPermutation(config.codeSecret, config.codeLength), config.codeLength);

const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
};

collect();
const before = process.memoryUsage();
const cache = createLinkCache(config);
const now = Date.now();
for (let i = 0; i < links; i++) {
  // Strings as pg hands them over: flat, decoded from a buffer, not built by concatenation.
  const url = Buffer.from(targetUrl(i)).toString();
  const code = codec.fromId(i);
  cache.fill(
    code as string as LinkKey,
    {
      domainId: 0,
      code,
      url,
      expiresAt: null,
      startsAt: null,
      disabled: false,
      safety: null,
      safetyList: null,
      deleted: false,
      version: 0,
      options: null,
    },
    now,
  );
}
collect();
const after = process.memoryUsage();
// Every link must still be there, or the figure would be for fewer links than claimed.
let present = 0;
for (let i = 0; i < links; i++) if (isRedirect(cache.get(codec.fromId(i)) ?? ABSENT)) present++;
const mb = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;
console.log(
  JSON.stringify({
    links: present,
    rssMb: mb(after.rss),
    rssBeforeMb: mb(before.rss),
    heapUsedMb: mb(after.heapUsed),
    heapTotalMb: mb(after.heapTotal),
    externalMb: mb(after.external),
    bytesPerLink: Math.round((after.rss - before.rss) / Math.max(1, present)),
  }),
);
