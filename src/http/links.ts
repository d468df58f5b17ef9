// POST /links and POST /links/bulk: validate, enqueue, and answer only once the link's batch has
// committed. An Idempotency-Key makes a create safe to retry: the same key with the same body gets
// the original answer, with another body a 422.

import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkLinkRequest, type Link } from '../core/link.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { findIdempotencyKey, findLinks, type IdempotencyKey } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError, isAppError } from '../errors.ts';
import { IdempotencyKeyTaken, type WriteQueue } from '../write/write-queue.ts';
import { BulkBody, BulkResult, CreatedLink, CreateLinkBody, errors } from './schemas.ts';

export const BODY_LIMIT_BYTES = 8 * 1024;
/** 1000 links of the longest URL, with room for the JSON around them. */
export const BULK_BODY_LIMIT_BYTES = 2560 * 1024;

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
  /** Route options of the creates (rate limits), from rate-limits.ts. */
  createRouteConfig?: Record<string, unknown>;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** An encapsulated plugin: its slow-request hook does not touch the redirect route. */
export async function linksRoutes(plain: FastifyInstance, deps: LinksDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { queue, db, breaker, baseUrl, policy } = deps;
  /** Creates in flight on this instance, by Idempotency-Key: a concurrent retry waits for the first. */
  const inFlightKeys = new Map<string, Promise<unknown>>();

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
    if (link === undefined) throw new AppError('LINK_NOT_FOUND');
    return link;
  };

  const createOnce = async (body: CreateLinkBody, ownerKeyId: number | null, key: IdempotencyKey | undefined): Promise<{ link: Link; replayed: boolean }> => {
    const verdict = checkLinkRequest(body, policy, Date.now());
    if (!verdict.ok) throw new AppError(verdict.code);
    if (key === undefined) return { link: await queue.enqueue(verdict.request, { ownerKeyId, idempotency: undefined }), replayed: false };
    const slot = `${key.scope}:${key.key}`;
    await inFlightKeys.get(slot)?.catch(() => {});
    const earlier = await replay(key);
    if (earlier !== undefined) return { link: earlier, replayed: true };
    const creating = queue.enqueue(verdict.request, { ownerKeyId, idempotency: key });
    inFlightKeys.set(slot, creating);
    try {
      return { link: await creating, replayed: false };
    } catch (err) {
      if (!(err instanceof IdempotencyKeyTaken)) throw err;
      // Another instance committed a create with this key first: its answer is the answer.
      const first = await replay(key);
      if (first === undefined) throw new AppError('DATABASE_UNAVAILABLE', undefined, { cause: err });
      return { link: first, replayed: true };
    } finally {
      if (inFlightKeys.get(slot) === creating) inFlightKeys.delete(slot);
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
          'Answered 201 only once the link is committed. Send an Idempotency-Key header to retry safely: the same key and body give the original answer (with Idempotent-Replayed: true), another body a 422.',
        tags: ['links'],
        headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', description: '1–255 printable ASCII characters.' } } },
        body: CreateLinkBody,
        response: { 201: CreatedLink, ...errors(400, 401, 409, 413, 415, 422, 429, 503) },
      },
    },
    async function createLink(request, reply) {
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
          'Every item goes through the same rules and write queue as a single create, and is answered on its own: 201 with the link, or the status and error a single create would have had. The answer is 200 once every item is settled.',
        tags: ['links'],
        body: BulkBody,
        response: { 200: BulkResult, ...errors(400, 401, 413, 415, 429, 503) },
      },
    },
    async function createLinks(request) {
      const ownerKeyId = owner(request);
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
    if (reply.elapsedTime > deps.slowRequestMs) {
      request.log.warn({ url: request.url, ms: Math.round(reply.elapsedTime) }, 'slow request');
    }
  });
}

/** The request's Idempotency-Key with its scope and the hash of its body; undefined without one. */
function idempotencyKey(request: FastifyRequest<{ Body: CreateLinkBody }>, ownerKeyId: number | null): IdempotencyKey | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) throw new AppError('IDEMPOTENCY_KEY_INVALID');
  const { url, alias, expiresAt } = request.body;
  const requestHash = createHash('sha256').update(JSON.stringify([url, alias ?? null, expiresAt ?? null])).digest();
  return { scope: ownerKeyId ?? 0, key: header, requestHash };
}
