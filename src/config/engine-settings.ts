// The engine under them: codes, the batch sizes of reads and writes, the pools, the breaker, the timeouts of clients and of shutdown, metrics.
// Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { CODE_LENGTH_MAX, CODE_LENGTH_MIN } from '../core/codes.ts';
import { DEV_CODE_SECRET } from './values.ts';
import { Type } from 'typebox';
import { type Settings } from './schema.ts';

export const ENGINE_SETTINGS = {
  codeLength: {
    env: 'CODE_LENGTH',
    schema: Type.Integer({ minimum: CODE_LENGTH_MIN, maximum: CODE_LENGTH_MAX, default: 7 }),
    doc:
      'length of generated codes, 5–8 (62^7 ≈ 3.5 × 10^12 codes). With 5 (62^5 ≈ 9 × 10^8) every unknown code is looked up: ' +
      'the space is too small to rule any out',
  },
  codeSecret: {
    env: 'CODE_SECRET',
    secret: true,
    schema: Type.String({ minLength: 16, default: DEV_CODE_SECRET }),
    expected: 'at least 16 characters',
    shownDefault: 'a development default',
    doc:
      "the deployment's secret: key of the permutation that makes codes unguessable in order; at least 16 characters. " +
      '**Required in production**: the service refuses to start with the development default or a placeholder containing ' +
      '"change me" unless it runs the embedded engine (no `DATABASE_URL`) outside `NODE_ENV=production`, or `NODE_ENV=development`. ' +
      'Link passes are signed with a key derived from it (HKDF). Changing it later is safe: stored codes keep working, ' +
      'a new code that meets an old one takes the next id, ' +
      'and unknown codes are then always looked up in Postgres ' +
      '(the in-memory "impossible code" check needs the key that generated the database\'s codes)',
  },
  readBatchMax: {
    env: 'READ_BATCH_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
    doc: 'most codes in one Postgres lookup',
  },
  writeBatchMax: {
    env: 'WRITE_BATCH_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 5_000, default: 500 }),
    doc: 'most links in one group-commit `INSERT`',
  },
  writeQueueMax: {
    env: 'WRITE_QUEUE_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 10_000 }),
    doc: 'most links waiting to be written; beyond it `503 WRITE_QUEUE_FULL`',
  },
  writeQueueWorkspaceShare: {
    env: 'WRITE_QUEUE_WORKSPACE_SHARE',
    schema: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 0.5 }),
    expected: 'a number above 0 and at most 1',
    doc:
      'the most of `WRITE_QUEUE_MAX` the links of one workspace may hold before its bulk creates and imports stop adding to it: ' +
      "past it an import's rows wait for room and a bulk's items get `503 WRITE_QUEUE_SHARE_FULL`, so that one workspace's " +
      "flood leaves room for the others' creates; a single `POST /links` (limited per key and address) may use the whole queue",
  },
  writeTimeoutMs: {
    env: 'WRITE_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 120_000, default: 5000 }),
    doc:
      'a link still queued after this is answered `503 DATABASE_TIMEOUT`; with the batch being written, ' +
      'a create waits at most about `WRITE_TIMEOUT_MS + BREAKER_TIMEOUT_MS`',
  },
  dbPoolMax: {
    env: 'DB_POOL_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    doc: 'Postgres connections',
  },
  dbListPoolMax: {
    env: 'DB_LIST_POOL_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
    doc:
      'Postgres connections of a pool of their own for the link list, its search, tags, CSV exports and stats, with a breaker of its own: ' +
      'a slow search waits for these, never for the `DB_POOL_MAX` of redirects and writes (the embedded engine shares its one)',
  },
  dbAuthPoolMax: {
    env: 'DB_AUTH_POOL_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
    doc:
      'Postgres connections of a pool of their own for looking up API keys and sessions and for `/readyz`, with a breaker of its own: ' +
      'a flood of made-up keys or of readiness checks waits for these, never for the `DB_POOL_MAX` of redirects and writes ' +
      '(the embedded engine shares its one)',
  },
  listSlowPerWorkspace: {
    env: 'LIST_SLOW_PER_WORKSPACE',
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
    doc:
      'CSV exports and searches of the link list one workspace may have under way at once on an instance; more get ' +
      "`429 TOO_MANY_SLOW_REQUESTS`, so that one workspace cannot hold every `DB_LIST_POOL_MAX` connection nor open the list's breaker for all",
  },
  dbConnectTimeoutMs: {
    env: 'DB_CONNECT_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 60_000, default: 2000 }),
    doc: 'wait for a connection',
  },
  dbStatementTimeoutMs: {
    env: 'DB_STATEMENT_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 10, maximum: 600_000, default: 2000 }),
    doc: 'Postgres cancels a statement after this (server side)',
  },
  breakerTimeoutMs: {
    env: 'BREAKER_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 10, maximum: 600_000, default: 3000 }),
    doc: 'the breaker gives up on a batch after this; must exceed the statement timeout',
  },
  breakerResetMs: {
    env: 'BREAKER_RESET_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 5000 }),
    doc: 'how long an open breaker fails fast before trying again',
  },
  requestTimeoutMs: {
    env: 'REQUEST_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
    doc: 'most time to receive a whole request, headers and body, from its first byte; then `408` and the connection is closed',
  },
  // Never past the request timeout by default, as Node does (min(60 s, requestTimeout)).
  headersTimeoutMs: {
    env: 'HEADERS_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000 }),
    fallback: ({ requestTimeoutMs }: { readonly requestTimeoutMs: number }) => Math.min(5000, requestTimeoutMs),
    shownDefault: '`5000` (or `REQUEST_TIMEOUT_MS` if lower)',
    doc:
      "most time to receive a request's headers, from their first byte (on a new connection: from its opening); " +
      'then `408` and the connection is closed. Must not exceed `REQUEST_TIMEOUT_MS`',
  },
  keepAliveTimeoutMs: {
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 1000, maximum: 600_000, default: 72_000 }),
    doc:
      "idle keep-alive connections are closed this long (plus Node's 1 s buffer) " +
      'after their last response (above common load-balancer idle timeouts)',
  },
  fastPath: {
    env: 'FAST_PATH',
    schema: Type.Boolean({ default: true }),
    doc:
      'redirects (`GET`/`HEAD /:code`) are parsed and answered straight from the socket, anything else is handed to ' +
      'node:http; `false`: every request goes through node:http (the same answers, slower), see [Performance](#performance)',
  },
  slowRequestMs: {
    env: 'SLOW_REQUEST_MS',
    schema: Type.Integer({ minimum: 1, maximum: 600_000, default: 1000 }),
    doc: 'requests slower than this are logged at `warn` with their code',
  },
  shutdownGraceMs: {
    env: 'SHUTDOWN_GRACE_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
    doc: 'hard limit of a graceful shutdown',
  },
  readinessDrainMs: {
    env: 'READINESS_DRAIN_MS',
    schema: Type.Integer({ minimum: 0, maximum: 600_000, default: 0 }),
    doc:
      'after SIGTERM, ' +
      'how long `/readyz` fails before the server stops accepting (give your load balancer time to notice, e.g. `5000` on Kubernetes)',
  },
  metricsEnabled: {
    env: 'METRICS_ENABLED',
    schema: Type.Boolean({ default: true }),
    doc:
      '`GET /metrics` (Prometheus) and the counting behind it; `false`: no route, ' +
      'nothing counted (click counts go on: they are data, not metrics)',
  },
} satisfies Settings;
