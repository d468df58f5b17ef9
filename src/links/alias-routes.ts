// GET /links/alias-availability: whether a create with this alias on this domain would be refused
// for its alias, by the rules of a create (core/codes.ts aliasProblem) and the links table (any row,
// a deleted link's too). Any key of the workspace. An "available" answer is a not-found, so it is
// bought from the client's 404 budget as GET /:code is (edge/not-found-limit.ts): no free way to
// test codes.

import type { IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SECURITY } from '../api/schemas.ts';
import { requireKey } from '../auth/authenticate.ts';
import { aliasProblem, type ShortCode } from '../core/codes.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import type { NotFoundLimit } from '../edge/not-found-limit.ts';
import { AppError, ERRORS, errorResponses as errors } from '../errors.ts';
import type { AliasStore } from './alias-store.ts';
import { AliasAvailability, AliasAvailabilityQuery } from './schemas.ts';

export interface AliasDeps {
  aliases: AliasStore;
  shortUrls: ShortUrls;
  /** The 404 budget the redirect path spends too; null: no limit. */
  notFoundLimit: NotFoundLimit | null;
  clientAddress: (req: IncomingMessage) => string;
}

const ALIAS_AVAILABILITY = {
  summary: 'Whether a custom alias is free on a domain',
  description:
    'The same rules as a create: an alias that is not 3–64 characters of A-Z a-z 0-9 _ -, a reserved word, or the code of ' +
    'any link of the domain (deleted ones too) is not available, with the code the create would get. Any key of the ' +
    'workspace; an available alias spends one of the client’s 404s (NOT_FOUND_LIMIT_PER_MINUTE).',
  tags: ['links'],
  security: SECURITY,
  querystring: AliasAvailabilityQuery,
  response: { 200: AliasAvailability, ...errors(400, 401, 429, 503) },
};

export async function aliasRoutes(plain: FastifyInstance, deps: AliasDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { aliases, shortUrls, notFoundLimit: limit } = deps;

  app.get('/links/alias-availability', { schema: ALIAS_AVAILABILITY }, async function aliasAvailability(request, reply) {
    const key = requireKey(request);
    const { alias } = request.query;
    const domain = await shortUrls.domainOf(request.query.domain, key.workspaceId);
    const answer = { alias, domain: domain.host };
    const problem = aliasProblem(alias);
    if (problem !== undefined) return { ...answer, available: false, reason: { code: problem, message: ERRORS[problem].message } };
    // Reserved before the lookup, given back if the alias is taken (a found link costs nothing).
    const client = limit === null ? undefined : deps.clientAddress(request.raw);
    if (limit !== null && client !== undefined && !limit.take(client, performance.now())) {
      reply.header('retry-after', String(limit.retryAfterSeconds));
      throw new AppError('NOT_FOUND_RATE_LIMITED');
    }
    let taken: boolean;
    try {
      taken = await aliases.inUse({ domainId: domain.id, code: alias as ShortCode });
    } catch (err) {
      if (client !== undefined) limit?.refund(client);
      throw err;
    }
    if (!taken) return { ...answer, available: true };
    if (client !== undefined) limit?.refund(client);
    return { ...answer, available: false, reason: { code: 'ALIAS_TAKEN', message: ERRORS.ALIAS_TAKEN.message } };
  });
}
