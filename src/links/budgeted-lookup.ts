// What a public route answers for a code (QR codes, the password form) is bought from the same 404
// budget as GET /:code (edge/not-found-limit.ts): a 404 costs the client one, reserved before a
// lookup and given back if it finds a link, so no route is a free way to test codes or to make
// each guessed code cost a query.

import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ABSENT, type CacheEntry, type LinkCache } from '../cache/link-cache.ts';
import type { LinkKey } from '../core/domains.ts';
import type { NotFoundLimit } from '../edge/not-found-limit.ts';
import { AppError } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { Resolver } from '../resolve/resolver.ts';

export interface LookupDeps {
  cache: Pick<LinkCache, 'get'>;
  codeSpace: Pick<CodeSpace, 'impossible'>;
  resolver: Pick<Resolver, 'resolve' | 'inFlight'>;
  /** The 404 budget the redirect path spends too; null: no limit. */
  notFoundLimit: NotFoundLimit | null;
  clientAddress: (req: IncomingMessage) => string;
}

function limited(reply: FastifyReply, limit: NotFoundLimit): AppError {
  reply.header('retry-after', String(limit.retryAfterSeconds));
  return new AppError('NOT_FOUND_RATE_LIMITED');
}

/**
 * The entry of `key` (undefined: no code's shape, a 404), from the cache or a lookup; a 404 is
 * taken from the client's budget, and a client with none left gets 429 NOT_FOUND_RATE_LIMITED.
 */
export async function budgetedEntry(
  deps: LookupDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  key: LinkKey | undefined,
): Promise<CacheEntry> {
  const { cache, codeSpace, resolver, notFoundLimit: limit } = deps;
  const entry = key === undefined ? ABSENT : cache.get(key);
  if (entry === ABSENT) {
    if (limit !== null && !limit.take(deps.clientAddress(request.raw), performance.now())) throw limited(reply, limit);
    return ABSENT;
  }
  if (entry !== undefined || key === undefined) return entry ?? ABSENT;
  // Reserved before the lookup, given back if it finds a link (as edge/redirect-handler.ts does).
  let client: string | undefined;
  if (limit !== null && !resolver.inFlight(key)) {
    client = deps.clientAddress(request.raw);
    if (!limit.take(client, performance.now())) throw limited(reply, limit);
  }
  let found: CacheEntry;
  try {
    found = codeSpace.impossible(key) ? ABSENT : await resolver.resolve(key);
  } catch (err) {
    if (client !== undefined) limit?.refund(client);
    throw err;
  }
  if (client !== undefined && found !== ABSENT) limit?.refund(client);
  return found;
}
