// API keys. A key is a random 32-byte secret, shown once when it is made; only its SHA-256 is
// stored, so a copy of the database gives no usable key. A request names its key with
// `Authorization: Bearer <key>` or `X-API-Key: <key>`; the redirect path never looks.
//
// Verified keys are remembered for KEY_CACHE_MS, so a revocation takes effect on every instance
// within that time, and a burst of creates costs one lookup.

import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';

export interface ApiKey {
  readonly id: number;
  readonly name: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified API key the request carries, or null. */
    apiKey: ApiKey | null;
  }
}

const PREFIX = 'sk_';
/** sk_ and 32 bytes in base64url. */
const KEY_SHAPE = /^sk_[A-Za-z0-9_-]{43}$/;
const KEY_CACHE_MS = 10_000;

/** A new secret and the hash that is stored for it. */
function newKeySecret(): { secret: string; hash: Buffer } {
  const secret = PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashKey(secret) };
}

function hashKey(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export async function createApiKey(db: Queryable, name: string): Promise<{ id: number; name: string; secret: string }> {
  const { secret, hash } = newKeySecret();
  const { rows } = await db.query<{ id: string }>('INSERT INTO api_keys (name, hash) VALUES ($1, $2) RETURNING id', [name, hash]);
  return { id: Number(rows[0]?.id), name, secret };
}

export interface ApiKeyInfo {
  id: number;
  name: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function listApiKeys(db: Queryable): Promise<ApiKeyInfo[]> {
  const { rows } = await db.query<{ id: string; name: string; created_at: Date; revoked_at: Date | null }>(
    'SELECT id, name, created_at, revoked_at FROM api_keys ORDER BY id',
  );
  return rows.map((row) => ({ id: Number(row.id), name: row.name, createdAt: row.created_at, revokedAt: row.revoked_at }));
}

/** True if the key was active and is now revoked. */
export async function revokeApiKey(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
  return rowCount === 1;
}

/** The secret a request presents, undefined if none; a header that is present but malformed is refused. */
function presentedSecret(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  const header = request.headers['x-api-key'];
  let secret: string | undefined;
  // Node keeps the first of several Authorization headers and drops the rest: which key was meant?
  if (authorization !== undefined && headerCount(request.raw.rawHeaders, 'authorization') > 1) {
    throw new AppError('API_KEY_INVALID', 'Send one Authorization header.');
  }
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (match === null) throw new AppError('API_KEY_INVALID', 'Authorization must be "Bearer <API key>".');
    secret = match[1];
  } else if (typeof header === 'string') {
    secret = header.trim();
  } else if (header !== undefined) {
    throw new AppError('API_KEY_INVALID', 'Send one X-API-Key header.');
  }
  return secret;
}

function headerCount(raw: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === name) count++;
  return count;
}

/**
 * Sets `request.apiKey` on every request to the API (/links…; redirects never get here). A request
 * without a key goes on as anonymous; a wrong or revoked key is a 401, never anonymous: a client
 * that meant to use a key must learn that it did not work.
 */
export function registerApiKeys(app: FastifyInstance, db: Queryable, breaker: DbBreaker): void {
  const verified = new LRUCache<string, ApiKey | false>({ max: 10_000, ttl: KEY_CACHE_MS });
  app.decorateRequest('apiKey', null);
  app.addHook('onRequest', async (request) => {
    // The API lives under /links; health, metrics and docs answer whatever headers come along.
    if (request.routeOptions.url?.startsWith('/links') !== true) return;
    const secret = presentedSecret(request);
    if (secret === undefined) return;
    if (!KEY_SHAPE.test(secret)) throw new AppError('API_KEY_INVALID');
    const hash = hashKey(secret).toString('base64');
    let key = verified.get(hash);
    if (key === undefined) {
      const { rows } = await breaker.run(() =>
        db.query<{ id: string; name: string }>('SELECT id, name FROM api_keys WHERE hash = $1 AND revoked_at IS NULL', [
          Buffer.from(hash, 'base64'),
        ]),
      );
      const row = rows[0];
      key = row === undefined ? false : { id: Number(row.id), name: row.name };
      verified.set(hash, key);
    }
    if (key === false) throw new AppError('API_KEY_INVALID');
    request.apiKey = key;
  });
}

/** The request's key; 401 API_KEY_REQUIRED without one. */
export function requireKey(request: FastifyRequest): ApiKey {
  if (request.apiKey === null) throw new AppError('API_KEY_REQUIRED');
  return request.apiKey;
}
