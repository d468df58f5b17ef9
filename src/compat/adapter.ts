// What every compatible API's adapter stands on: the services it calls (the same as our own routes
// call), and the few things each does alike: its routes left out of our OpenAPI document, a JSON
// body that may be empty, a body that must be an object, a whole-number query parameter, and a
// link just created as the list would read it.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StatsService } from '../analytics/stats.ts';
import { DEFAULT_DOMAIN_ID } from '../core/domains.ts';
import type { DomainService } from '../domains/service.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { AppError } from '../errors.ts';
import type { CreatedLinkState, Creator, LinkCreates } from '../links/creates.ts';
import type { LinkLists } from '../links/list-store.ts';
import type { LinkService } from '../links/service.ts';
import type { LinkDetails } from '../links/store.ts';

/** The services an adapter calls, built once by the compat part (plugin.ts). */
export interface CompatServices {
  readonly creates: LinkCreates;
  readonly links: LinkService;
  readonly lists: LinkLists;
  readonly shortUrls: ShortUrls;
  /** The workspaces' own domains, and the default domain's host. */
  readonly domains: DomainService;
  /** The click statistics; null where the app is built without them. */
  readonly stats: StatsService | null;
  /** Creates need an API key (CREATE_REQUIRES_API_KEY); a peer's anonymous creates follow it. */
  readonly keyRequired: boolean;
  /** Route options of the creates: the create limits, one count with our POST /links ({} when they are off). */
  readonly createRoute: { readonly config?: Record<string, unknown> };
}

/**
 * Leaves the context's routes out of this service's OpenAPI document (each peer's API is
 * documented as the peer's, docs/compat.md), with `config` added to every route's options.
 */
export function peerRoutes(app: FastifyInstance, config: Record<string, unknown> = {}): void {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
    route.config = { ...route.config, ...config };
  });
}

/** Peers' clients send Content-Type: application/json on every request, a GET's and a DELETE's with no body: no body is no error. */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined);
    else void json(request, body as string, done);
  });
}

/** The body, which must be a JSON object: 400 BODY_INVALID (`message`) otherwise. */
export function jsonObject(body: unknown, message = 'Send a JSON object.'): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError('BODY_INVALID', message);
  return body as Record<string, unknown>;
}

/** The request's body as a JSON object (jsonObject). */
export function bodyOf(request: FastifyRequest): Record<string, unknown> {
  return jsonObject(request.body);
}

/** A whole-number query parameter from `min` to `max`; `fallback` when absent or empty. 400 LIST_QUERY_INVALID, naming it, otherwise. */
export function wholeNumber(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max))
    throw new AppError('LIST_QUERY_INVALID', `${name} must be a whole number from ${min} to ${max}.`, { field: name });
  return n;
}

/**
 * A link just committed, as the list would read it: made now, by `creator` (named `ownerName`),
 * with no clicks yet. The create's answer needs no read back of what it wrote.
 */
export function createdDetails(
  link: CreatedLinkState,
  creator: Creator,
  shortUrls: ShortUrls,
  ownerName: string | null = null,
): LinkDetails {
  return {
    ...link,
    domainHost: link.domainId === DEFAULT_DOMAIN_ID ? null : shortUrls.of(link).domain,
    createdAt: new Date(),
    workspaceId: creator.workspaceId,
    ownerKeyId: creator.ownerKeyId,
    ownerPersonId: null,
    ownerName,
    disabled: false,
    deleted: false,
    version: 0,
    clicks: 0,
    botClicks: 0,
    clicksUsed: null,
  };
}

/** A field that must be a string when given; absent or null: undefined. 400 BODY_INVALID naming it otherwise. */
export function stringField(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new AppError('BODY_INVALID', `${name} must be a string.`, { field: name });
  return value;
}

/** A target without a scheme, as the peer takes it: with `scheme` (Kutt and YOURLS: http, Dub: https). */
export function withScheme(target: string, scheme: 'http' | 'https'): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) ? target : `${scheme}://${target}`;
}
