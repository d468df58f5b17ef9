// The dashboard: a single-page app (web/, built by `npm run build:app` into dist/app/, which
// `npm ci` runs) served under /app/. Every /app/<route> answers its index.html, under a strict
// Content-Security-Policy (no inline script or style, nothing from another origin); its files
// under /app/assets/ have content hashes in their names, so browsers keep them for a year. GET /
// redirects to ROOT_REDIRECT. None of this is on the redirect path: these are Fastify routes,
// reached only by requests the fast path and the redirect listener hand on.

import { existsSync, readFileSync } from 'node:fs';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';

export const DASHBOARD_DIR = new URL('../../dist/app/', import.meta.url).pathname;

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; " +
    "manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

export interface DashboardOptions {
  /** Where GET / of the request's host redirects (ROOT_REDIRECT, or a domain's own); null: 404. */
  rootOf: (request: FastifyRequest) => string | null;
  /** false: no dashboard routes at all. */
  enabled: boolean;
  /** dist/app by default. */
  dir?: string;
  log: Logger;
}

export async function dashboardRoutes(
  app: FastifyInstance,
  { rootOf, enabled, dir = DASHBOARD_DIR, log }: DashboardOptions,
): Promise<void> {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    // The router takes the asterisk-form target of `GET * HTTP/1.1` (for OPTIONS only) for `/`: no code, no page.
    if (!request.url.startsWith('/')) throw new AppError('LINK_NOT_FOUND');
    const location = rootOf(request);
    if (location === null) throw new AppError('ROUTE_NOT_FOUND');
    return reply.code(302).header('location', location).header('cache-control', 'no-cache').send();
  });
  if (!enabled) return;
  app.get('/app', { schema: { hide: true } }, async (_request, reply) => reply.code(308).header('location', '/app/').send());

  const index = `${dir}index.html`;
  if (!existsSync(index)) {
    log.warn({ dir }, 'the dashboard has not been built (npm run build:app): /app/ answers 503 until it is');
    app.get('/app/*', { schema: { hide: true } }, async () => {
      throw new AppError('DASHBOARD_NOT_BUILT');
    });
    return;
  }
  const page = readFileSync(index);
  const sendPage = (reply: FastifyReply) =>
    reply.headers(PAGE_HEADERS).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
  // /app/ and the app's own routes (/app/links/XArj78D, …) are the same page; it reads its path itself.
  app.get('/app/*', { schema: { hide: true } }, async (_request, reply) => sendPage(reply));
  await app.register(fastifyStatic, {
    root: `${dir}assets/`,
    prefix: '/app/assets/',
    index: false,
    dotfiles: 'deny',
    immutable: true,
    maxAge: '365d',
    setHeaders(reply) {
      reply.header('x-content-type-options', 'nosniff');
    },
  });
}
