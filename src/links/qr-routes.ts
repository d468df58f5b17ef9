// GET /links/:code/qr: the QR code of a link's short URL with QR_QUERY (`?qr=1`, which redirects
// the same and marks the click as a scan), as SVG or PNG. Public, like the short URL it encodes; a
// code gets one only while it redirects, and a 404 spends the client's 404 budget as a redirect
// does, so the route is no free way to test codes. What it answers: docs/api.md#get-linkscodeqr.

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { refusalOf, type LinkCache } from '../cache/link-cache.ts';
import { budgetedEntry, type LookupDeps } from './budgeted-lookup.ts';
import { asShortCode } from '../core/codes.ts';
import { linkKey, storedHostOf } from '../core/domains.ts';
import { qrMatrix, qrPng, qrSvg, type QrLevel } from './qr-image.ts';
import { AppError } from '../errors.ts';
import { QR_QUERY } from '../edge/request-head.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { HostTable } from '../resolve/hosts.ts';
import type { Resolver } from '../resolve/resolver.ts';
import type { NotFoundLimit } from '../edge/not-found-limit.ts';
import { CodeParams } from '../api/schemas.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { errorResponses as errors } from '../errors.ts';

export interface QrDeps {
  shortUrls: ShortUrls;
  /** The domain `?domain=` names: any domain's links have public QR codes, as they have public redirects. */
  hosts: Pick<HostTable, 'byHost' | 'defaultDomain'>;
  cache: LinkCache;
  codeSpace: CodeSpace;
  resolver: Resolver;
  /** The 404 budget the redirect path spends too; null: no limit. */
  notFoundLimit: NotFoundLimit | null;
  clientAddress: (req: IncomingMessage) => string;
}

export interface QrOptions {
  format: 'svg' | 'png';
  /** Pixels per side, quiet zone included. */
  size: number;
  /** Quiet zone, in modules (the standard asks for 4). */
  margin: number;
  /** M (15 % of the symbol may be damaged) by default: enough for print, and a smaller symbol than Q or H. */
  level: QrLevel;
}

const QR_SIZE_MIN = 64;
const QR_SIZE_MAX = 2048;
const QR_MARGIN_MAX = 16;
const LEVELS: ReadonlySet<string> = new Set(['L', 'M', 'Q', 'H']);
const CACHE_CONTROL = 'public, max-age=86400, immutable';
/** Rendered images kept: a QR code on a busy page is asked for again and again. */
const RENDERED_MAX_BYTES = 8 * 1024 * 1024;

/** The q-value `accept` gives `type` (exact, then `image/*`, then `*\/*`); 0 if it names none of them. */
function quality(accept: string, type: string): number {
  let best = { specificity: -1, q: 0 };
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const specificity = range === type ? 2 : range === 'image/*' ? 1 : range === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const q = params.find((param) => param.startsWith('q='));
    best = { specificity, q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  }
  return best.q;
}

function integer(raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min && n <= max)) throw new AppError('QR_OPTIONS_INVALID');
  return n;
}

/** The options of a request: `format`, `size`, `margin`, `level` in the query; else the Accept header picks the format. */
export function qrOptionsOf(query: Record<string, string | undefined>, accept: string | undefined): QrOptions {
  let format: QrOptions['format'];
  if (query.format === undefined) {
    // PNG only when the client prefers it: SVG is smaller and scales to any print size.
    format = accept !== undefined && quality(accept, 'image/png') > quality(accept, 'image/svg+xml') ? 'png' : 'svg';
  } else if (query.format === 'svg' || query.format === 'png') {
    format = query.format;
  } else {
    throw new AppError('QR_OPTIONS_INVALID');
  }
  const level = query.level ?? 'M';
  if (!LEVELS.has(level)) throw new AppError('QR_OPTIONS_INVALID');
  return {
    format,
    size: integer(query.size, 256, QR_SIZE_MIN, QR_SIZE_MAX),
    margin: integer(query.margin, 4, 0, QR_MARGIN_MAX),
    level: level as QrLevel,
  };
}

const QR = {
  summary: "The QR code of a link's short URL",
  description:
    `It encodes the short URL with ?${QR_QUERY}, which redirects the same and counts the click as a scan (source qr). ` +
    'SVG by default; PNG with format=png or an Accept header that prefers image/png. No API key needed. ' +
    '404 for an unknown code, 410 for an expired or disabled link.',
  tags: ['links'],
  params: CodeParams,
  // Plain strings: qrOptionsOf checks their values, for a 400 QR_OPTIONS_INVALID.
  querystring: {
    type: 'object',
    properties: {
      format: { type: 'string', description: 'svg (default) or png' },
      size: { type: 'string', description: `pixels per side, ${QR_SIZE_MIN}–${QR_SIZE_MAX} (default 256)` },
      margin: { type: 'string', description: `quiet zone in modules, 0–${QR_MARGIN_MAX} (default 4)` },
      level: { type: 'string', description: 'error correction: L, M (default), Q or H' },
      domain: { type: 'string', description: "the host of the link's short domain; absent: the default domain" },
    },
  },
  response: {
    200: {
      description: 'The QR code.',
      content: { 'image/svg+xml': { schema: { type: 'string' } }, 'image/png': { schema: { type: 'string', format: 'binary' } } },
    },
    ...errors(400, 401, 404, 410, 429, 503),
  },
};

export async function qrRoutes(app: FastifyInstance, deps: QrDeps): Promise<void> {
  const { shortUrls, hosts } = deps;
  const lookups: LookupDeps = deps;
  const rendered = new LRUCache<string, string | Buffer>({
    maxSize: RENDERED_MAX_BYTES,
    sizeCalculation: (image, key) => key.length + image.length,
  });

  /**
   * The short URL of the link (`raw` on the domain `host` names) if it redirects; a 404 is taken
   * from the client's budget, as on GET /:code (budgeted-lookup.ts).
   */
  const check = async (request: FastifyRequest, reply: FastifyReply, raw: string, host: string | undefined): Promise<string> => {
    const domain = host === undefined ? hosts.defaultDomain : hosts.byHost(storedHostOf(host));
    if (domain === undefined) throw new AppError('DOMAIN_NOT_FOUND', 'No short domain of this deployment has this host.');
    const shape = asShortCode(raw);
    const code = shape === undefined ? undefined : linkKey(domain.id, shape);
    const entry = await budgetedEntry(lookups, request, reply, code);
    const refused = refusalOf(entry);
    if (refused !== undefined) throw new AppError(refused);
    return `${shortUrls.of({ domainId: domain.id, code: shape as string }).shortUrl}?${QR_QUERY}`;
  };

  app.get<{ Params: { code: string }; Querystring: Record<string, string | undefined> }>(
    '/links/:code/qr',
    {
      schema: QR,
      // A parameter given twice is an array, which the schema refuses: the route's own code says so.
      config: { queryError: 'QR_OPTIONS_INVALID' },
    },
    async function qr(request, reply) {
      const options = qrOptionsOf(request.query, request.headers.accept);
      const shortUrl = await check(request, reply, request.params.code, request.query.domain);
      const key = `${shortUrl} ${options.format} ${options.size} ${options.margin} ${options.level}`;
      let image = rendered.get(key);
      if (image === undefined) {
        const matrix = qrMatrix(shortUrl, options.level);
        // Fewer than two pixels per module cannot be scanned reliably (a PNG would drop modules).
        const side = matrix.size + 2 * options.margin;
        if (options.format === 'png' && options.size < 2 * side) {
          throw new AppError(
            'QR_OPTIONS_INVALID',
            `size must be at least ${2 * side} pixels for this code at this level and margin (2 pixels per module).`,
          );
        }
        image = options.format === 'svg' ? qrSvg(matrix, options.size, options.margin) : await qrPng(matrix, options.size, options.margin);
        rendered.set(key, image);
      }
      return (
        reply
          .header('content-type', options.format === 'svg' ? 'image/svg+xml' : 'image/png')
          .header('cache-control', CACHE_CONTROL)
          // Without ?format the Accept header chose the format.
          .header('vary', 'accept')
          .send(image)
      );
    },
  );
}
