// The naive way to create links, the `create` scenario's baseline: the same validation, the
// same code allocation, but one INSERT (and so one commit) per request on a pool of the same
// size. It opens its database as the service does (DATABASE_URL, or embedded PGlite).

import Fastify, { LogController } from 'fastify';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.ts';
import { createCodeCodec } from '../src/core/codes.ts';
import { checkLinkRequest, type CreateLinkBody } from '../src/core/link.ts';
import { targetPolicyOf } from '../src/core/target-policy.ts';
import { createPermutation } from '../src/core/permutation.ts';
import { openDatabase } from '../src/db/database.ts';
import { reserveIdBlock } from '../src/db/links.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { IdAllocator } from '../src/write/id-allocator.ts';

const config = loadConfig();
const log = pino({ level: 'info' });
const database = await openDatabase(config, log);
await migrate(database.url, log);
const pool = createPool(database.url, { ...config, dbPoolMax: database.poolMax }, log);
const codec = createCodeCodec(createPermutation(config.codeSecret, config.codeLength), config.codeLength);
const ids = new IdAllocator(() => reserveIdBlock(pool));
const policy = targetPolicyOf(config);

const app = Fastify({ loggerInstance: log, logController: new LogController({ disableRequestLogging: true }) });
app.post<{ Body: CreateLinkBody }>('/links', async (request, reply) => {
  const verdict = checkLinkRequest(request.body, policy, Date.now());
  if (!verdict.ok) return reply.code(400).send({ error: { code: verdict.code } });
  const [id] = await ids.take(1);
  const code = codec.fromId(id as number);
  await pool.query('INSERT INTO links (code, url, expires_at) VALUES ($1, $2, $3) ON CONFLICT (domain_id, code) DO NOTHING', [
    code,
    verdict.request.url,
    verdict.request.expiresAt,
  ]);
  reply.code(201);
  return { code, shortUrl: `${config.baseUrl}/${code}`, url: verdict.request.url, expiresAt: null };
});
await app.listen({ port: config.port, host: '127.0.0.1' });
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => database.stop())
    .then(() => process.exit(0));
});
