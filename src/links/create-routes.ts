// POST /links and POST /links/bulk: validate, enqueue, and answer only once the link's batch has
// committed (links/creates.ts). An Idempotency-Key makes a create safe to retry: the same key with
// the same body gets the original answer, with another body a 422.

import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_WORKSPACE_ID } from '../core/link.ts';
import { createProblem } from '../auth/roles.ts';
import { AppError, isAppError } from '../errors.ts';
import type { CreatedLinkState, Creator, LinkCreates } from './creates.ts';
import { optionsView } from './view.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { BulkBody, BulkResult, CreatedLink, CreateLinkBody } from './schemas.ts';
import { errorResponses as errors } from '../errors.ts';
import type { IdempotencyKey } from '../core/link.ts';

export const BODY_LIMIT_BYTES = 8 * 1024;
/** 1000 links of the longest URL, with room for the JSON around them. */
const BULK_BODY_LIMIT_BYTES = 2560 * 1024;

export interface LinksDeps {
  creates: LinkCreates;
  shortUrls: ShortUrls;
  /** Creates need an API key (CREATE_REQUIRES_API_KEY). */
  keyRequired: boolean;
  slowRequestMs: number;
  /** How long the 201 of an alias waits on purpose (resolve/code-space.ts): not slowness. */
  ackDelayMs(alias: string): number;
  /** Route options of the creates (rate limits), from create-limits.ts. */
  createRouteConfig?: Record<string, unknown>;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Who a request creates as: its key, in its workspace; without one, nobody, in the default workspace. */
export function creatorOf(request: FastifyRequest, keyRequired: boolean): Creator {
  const key = request.apiKey;
  if (key === null) {
    if (keyRequired) throw new AppError('API_KEY_REQUIRED');
    return { workspaceId: DEFAULT_WORKSPACE_ID, ownerKeyId: null };
  }
  const problem = createProblem(key);
  if (problem !== undefined) throw new AppError(problem);
  return { workspaceId: key.workspaceId, ownerKeyId: key.id };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The longest wait before an acknowledgement that the request's aliases take on purpose. */
    ackDelayMs: number;
  }
}

/** With CREATE_REQUIRES_API_KEY, a create without a key is refused before its body is read (after the API-key hook). */
async function keyFirst(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.apiKey !== null) return;
  // The body is never read: the connection ends after the answer (edge/lingering-close.ts drops what arrives meanwhile).
  reply.header('connection', 'close');
  throw new AppError('API_KEY_REQUIRED');
}

/** An encapsulated plugin: its slow-request hook does not touch the redirect route. */
const CREATE_LINK = {
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
  response: { 201: CreatedLink, ...errors(400, 401, 403, 409, 413, 415, 422, 429, 503) },
};

const CREATE_LINKS = {
  summary: `Create up to 1000 short links`,
  description:
    'Every item goes through the same rules and write queue as a single create, and is answered on its ' +
    'own: 201 with the link, or the status and error a single create would have had. The answer is 200 ' +
    'once every item is settled.',
  tags: ['links'],
  body: BulkBody,
  response: { 200: BulkResult, ...errors(400, 401, 403, 413, 415, 429, 503) },
};

export async function linksRoutes(plain: FastifyInstance, deps: LinksDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { creates, shortUrls } = deps;
  app.decorateRequest('ackDelayMs', 0);
  const delayOf = (body: CreateLinkBody): number => (typeof body.alias === 'string' ? deps.ackDelayMs(body.alias) : 0);
  const created = (link: CreatedLinkState) => ({
    code: link.code,
    ...shortUrls.of(link),
    url: link.url,
    expiresAt: link.expiresAt?.toISOString() ?? null,
    startsAt: link.startsAt?.toISOString() ?? null,
    title: link.title,
    tags: [...link.tags],
    options: optionsView(link.options),
  });

  app.post(
    '/links',
    {
      bodyLimit: BODY_LIMIT_BYTES,
      ...(deps.keyRequired ? { onRequest: keyFirst } : {}),
      ...(deps.createRouteConfig === undefined ? {} : { config: deps.createRouteConfig }),
      schema: CREATE_LINK,
    },
    async function createLink(request, reply) {
      request.ackDelayMs = delayOf(request.body);
      const creator = creatorOf(request, deps.keyRequired);
      const key = idempotencyKey(request, creator.ownerKeyId);
      const { link, replayed } = await creates.create(request.body, creator, key);
      if (replayed) reply.header('idempotent-replayed', 'true');
      const view = created(link);
      return reply.code(201).header('location', view.shortUrl).send(view);
    },
  );

  app.post(
    '/links/bulk',
    {
      bodyLimit: BULK_BODY_LIMIT_BYTES,
      ...(deps.keyRequired ? { onRequest: keyFirst } : {}),
      ...(deps.createRouteConfig === undefined ? {} : { config: deps.createRouteConfig }),
      schema: CREATE_LINKS,
    },
    async function createLinks(request) {
      if (request.headers['idempotency-key'] !== undefined) {
        throw new AppError(
          'IDEMPOTENCY_KEY_INVALID',
          'Idempotency-Key is not supported on /links/bulk: retry the items that failed, or create them one by one with a key each.',
        );
      }
      // A bulk's items are held to the workspace's share of the write queue: refused past it.
      const creator = { ...creatorOf(request, deps.keyRequired), share: 'refuse' as const };
      request.ackDelayMs = Math.max(0, ...request.body.links.map(delayOf));
      const results = await Promise.all(
        request.body.links.map(async (item, index) => {
          try {
            return { index, status: 201 as const, link: created((await creates.create(item, creator, undefined)).link) };
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
  const { url, alias, expiresAt, title, tags, domain, options, startsAt } = request.body;
  // Keys stored before titles and tags, domains, options, or starts existed were hashed from the fields there were then.
  const before =
    options !== undefined
      ? [url, alias ?? null, expiresAt ?? null, title ?? null, tags ?? null, domain ?? null, options]
      : title === undefined && tags === undefined && domain === undefined
        ? [url, alias ?? null, expiresAt ?? null]
        : domain === undefined
          ? [url, alias ?? null, expiresAt ?? null, title ?? null, tags ?? null]
          : [url, alias ?? null, expiresAt ?? null, title ?? null, tags ?? null, domain];
  const fields = startsAt === undefined ? before : [...before, { startsAt }];
  const requestHash = createHash('sha256').update(JSON.stringify(fields)).digest();
  // A key has no spaces: the first one ends the address.
  return ownerKeyId === null ? { scope: 0, key: `${request.ip} ${header}`, requestHash } : { scope: ownerKeyId, key: header, requestHash };
}
