// POST /links: validate, enqueue, and answer 201 only once the link's batch has committed.

import type { FastifyInstance } from 'fastify';
import { checkLinkRequest, type CreateLinkBody } from '../core/link.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { AppError } from '../errors.ts';
import type { WriteQueue } from '../write/write-queue.ts';

export const BODY_LIMIT_BYTES = 8 * 1024;

export interface LinksDeps {
  queue: WriteQueue;
  baseUrl: string;
  /** Where links may point. */
  policy: TargetPolicy;
  slowRequestMs: number;
}

const createBodySchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string' },
    alias: { type: 'string' },
    expiresAt: { type: ['string', 'null'] },
  },
} as const;

const createdSchema = {
  type: 'object',
  required: ['code', 'shortUrl', 'url', 'expiresAt'],
  properties: {
    code: { type: 'string' },
    shortUrl: { type: 'string' },
    url: { type: 'string' },
    expiresAt: { type: ['string', 'null'] },
  },
} as const;

/** An encapsulated plugin: its slow-request hook does not touch the redirect route. */
export async function linksRoutes(app: FastifyInstance, deps: LinksDeps): Promise<void> {
  const { queue, baseUrl, policy } = deps;

  app.post<{ Body: CreateLinkBody }>(
    '/links',
    { bodyLimit: BODY_LIMIT_BYTES, schema: { body: createBodySchema, response: { 201: createdSchema } } },
    async function createLink(request, reply) {
      const verdict = checkLinkRequest(request.body, policy, Date.now());
      if (!verdict.ok) throw new AppError(verdict.code);
      const link = await queue.enqueue(verdict.request);
      const shortUrl = `${baseUrl}/${link.code}`;
      reply.code(201).header('location', shortUrl);
      return { code: link.code, shortUrl, url: link.url, expiresAt: link.expiresAt?.toISOString() ?? null };
    },
  );

  app.addHook('onResponse', async (request, reply) => {
    if (reply.elapsedTime > deps.slowRequestMs) {
      request.log.warn({ url: request.url, ms: Math.round(reply.elapsedTime) }, 'slow request');
    }
  });
}
