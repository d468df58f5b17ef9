// POST /links and POST /links/bulk: validate, enqueue, and answer only once the link's batch has
// committed. An Idempotency-Key makes a create safe to retry: the same key with the same body gets
// the original answer, with another body a 422.

import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkLinkRequest, type Link, type LinkRequest } from '../core/link.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { findIdempotencyKey, findLinks, type IdempotencyKey } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError, isAppError } from '../errors.ts';
import { IdempotencyKeyTaken, type WriteQueue } from '../write/write-queue.ts';
import { BulkBody, BulkResult, CreatedLink, CreateLinkBody, errors } from './schemas.ts';

export const BODY_LIMIT_BYTES = 8 * 1024;
/** 1000 links of the longest URL, with room for the JSON around them. */
const BULK_BODY_LIMIT_BYTES = 2560 * 1024;

export interface LinksDeps {
  queue: WriteQueue;
  db: Queryable;
  breaker: DbBreaker;
  baseUrl: string;
  /** Where links may point. */
  policy: TargetPolicy;
  /** Creates need an API key (CREATE_REQUIRES_API_KEY). */
  keyRequired: boolean;
  slowRequestMs: number;
  /** How long the 201 of an alias waits on purpose (resolve/code-space.ts): not slowness. */
  ackDelayMs(alias: string): number;
  /** Route options of the creates (rate limits), from rate-limits.ts. */
  createRouteConfig?: Record<string, unknown>;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

interface Created {
  link: Link;
  replayed: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The longest wait before an acknowledgement that the request's aliases take on purpose. */
    ackDelayMs: number;
  }
}

/** An encapsulated plugin: its slow-request hook does not touch the redirect route. */
export async function linksRoutes(plain: FastifyInstance, deps: LinksDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { queue, db, breaker, baseUrl, policy } = deps;
  app.decorateRequest('ackDelayMs', 0);
  const delayOf = (body: CreateLinkBody): number => (typeof body.alias === 'string' ? deps.ackDelayMs(body.alias) : 0);
  /** Creates in flight on this instance, by Idempotency-Key: a concurrent retry waits for the first. */
  const inFlightKeys = new Map<string, Promise<Created>>();

  const created = (link: Link) => ({
    code: link.code,
    shortUrl: `${baseUrl}/${link.code}`,
    url: link.url,
    expiresAt: link.expiresAt?.toISOString() ?? null,
  });

  const owner = (request: FastifyRequest): number | null => {
    if (request.apiKey === null && deps.keyRequired) throw new AppError('API_KEY_REQUIRED');
    return request.apiKey?.id ?? null;
  };

  /** The original answer of the create that first used `key`; 422 if it came with another body. */
  const replay = async (key: IdempotencyKey): Promise<Link | undefined> => {
    const first = await breaker.run(() => findIdempotencyKey(db, key.scope, key.key));
    if (first === undefined) return undefined;
    if (!first.requestHash.equals(key.requestHash)) throw new AppError('IDEMPOTENCY_KEY_REUSED');
    const link = (await breaker.run(() => findLinks(db, [first.code]))).get(first.code);
    if (link === undefined || link.deleted) throw new AppError('LINK_NOT_FOUND', 'The link this Idempotency-Key created has been deleted.');
    return link;
  };

  /** A create with an Idempotency-Key: the original answer if the key was used, else a create that stores the key. */
  const createWithKey = async (request: LinkRequest, ownerKeyId: number | null, key: IdempotencyKey): Promise<Created> => {
    const earlier = await replay(key);
    if (earlier !== undefined) return { link: earlier, replayed: true };
    try {
      return { link: await queue.enqueue(request, { ownerKeyId, idempotency: key }), replayed: false };
    } catch (err) {
      // Another instance committed a create with this key first (its alias too, if there is one):
      // its answer is the answer.
      const lost = err instanceof IdempotencyKeyTaken || (isAppError(err) && err.code === 'ALIAS_TAKEN');
      if (!lost) throw err;
      const first = await replay(key);
      if (first !== undefined) return { link: first, replayed: true };
      if (err instanceof IdempotencyKeyTaken) throw new AppError('DATABASE_UNAVAILABLE', undefined, { cause: err });
      throw err;
    }
  };

  const createOnce = async (body: CreateLinkBody, ownerKeyId: number | null, key: IdempotencyKey | undefined): Promise<Created> => {
    const verdict = checkLinkRequest(body, policy, Date.now());
    if (!verdict.ok) throw new AppError(verdict.code);
    if (key === undefined) return { link: await queue.enqueue(verdict.request, { ownerKeyId, idempotency: undefined }), replayed: false };
    // One attempt per key at a time on this instance: wait for the one in flight, then take the
    // slot before the next await, so that a concurrent retry waits for this one in turn.
    const slot = `${key.scope}:${key.key}`;
    for (let running = inFlightKeys.get(slot); running !== undefined; running = inFlightKeys.get(slot)) {
      await running.catch(() => {});
    }
    const attempt = createWithKey(verdict.request, ownerKeyId, key);
    inFlightKeys.set(slot, attempt);
    try {
      return await attempt;
    } finally {
      if (inFlightKeys.get(slot) === attempt) inFlightKeys.delete(slot);
    }
  };

  app.post(
    '/links',
    {
      bodyLimit: BODY_LIMIT_BYTES,
      ...(deps.createRouteConfig === undefined ? {} : { config: deps.createRouteConfig }),
      schema: {
        summary: 'Create a short link',
        description:
          'Answered 201 only once the link is committed. Send an Idempotency-Key header to retry safely: the ' +
          'same key and body give the original answer (with Idempotent-Replayed: true), another body a 422.',
        tags: ['links'],
        headers: {
          type: 'object',
          properties: { 'idempotency-key': { type: 'string', description: '1–255 printable ASCII characters.' } },
        },
        body: CreateLinkBody,
        response: { 201: CreatedLink, ...errors(400, 401, 409, 413, 415, 422, 429, 503) },
      },
    },
    async function createLink(request, reply) {
      request.ackDelayMs = delayOf(request.body);
      const ownerKeyId = owner(request);
      const key = idempotencyKey(request, ownerKeyId);
      const { link, replayed } = await createOnce(request.body, ownerKeyId, key);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).header('location', `${baseUrl}/${link.code}`).send(created(link));
    },
  );

  app.post(
    '/links/bulk',
    {
      bodyLimit: BULK_BODY_LIMIT_BYTES,
      ...(deps.createRouteConfig === undefined ? {} : { config: deps.createRouteConfig }),
      schema: {
        summary: `Create up to 1000 short links`,
        description:
          'Every item goes through the same rules and write queue as a single create, and is answered on its ' +
          'own: 201 with the link, or the status and error a single create would have had. The answer is 200 ' +
          'once every item is settled.',
        tags: ['links'],
        body: BulkBody,
        response: { 200: BulkResult, ...errors(400, 401, 413, 415, 429, 503) },
      },
    },
    async function createLinks(request) {
      if (request.headers['idempotency-key'] !== undefined) {
        throw new AppError(
          'IDEMPOTENCY_KEY_INVALID',
          'Idempotency-Key is not supported on /links/bulk: retry the items that failed, or create them one by one with a key each.',
        );
      }
      const ownerKeyId = owner(request);
      request.ackDelayMs = Math.max(0, ...request.body.links.map(delayOf));
      const results = await Promise.all(
        request.body.links.map(async (item, index) => {
          try {
            return { index, status: 201 as const, link: created((await createOnce(item, ownerKeyId, undefined)).link) };
          } catch (err) {
            if (!isAppError(err)) throw err;
            return { index, status: err.statusCode, error: { code: err.code, message: err.message } };
          }
        }),
      );
      const createdCount = results.filter((r) => r.status === 201).length;
      return { created: createdCount, failed: results.length - createdCount, results };
    },
  );

  app.addHook('onResponse', async (request, reply) => {
    if (reply.elapsedTime - request.ackDelayMs > deps.slowRequestMs) {
      request.log.warn({ url: request.url, ms: Math.round(reply.elapsedTime) }, 'slow request');
    }
  });
}

/**
 * The request's Idempotency-Key with its scope and the hash of its body; undefined without one.
 * Keys are scoped to the API key that sends them; without one, to the client's address (scope
 * 0), so that one anonymous client cannot take, or probe, the keys of another.
 */
function idempotencyKey(request: FastifyRequest<{ Body: CreateLinkBody }>, ownerKeyId: number | null): IdempotencyKey | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) throw new AppError('IDEMPOTENCY_KEY_INVALID');
  const { url, alias, expiresAt } = request.body;
  const requestHash = createHash('sha256')
    .update(JSON.stringify([url, alias ?? null, expiresAt ?? null]))
    .digest();
  // A key has no spaces: the first one ends the address.
  return ownerKeyId === null ? { scope: 0, key: `${request.ip} ${header}`, requestHash } : { scope: ownerKeyId, key: header, requestHash };
}
