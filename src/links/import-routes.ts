// POST /links/import: a CSV file of links (our own layout, or an export of Bitly, YOURLS, Kutt or
// Shlink: links/import-formats.ts), each row created through the same rules and write queue as a
// POST /links, and answered with a report per row. Each row carries an Idempotency-Key made of its
// own content and scoped to the workspace, so the same file imported twice creates nothing the
// second time: its rows come back "existing". A row whose alias is taken by a link of the same
// workspace to the same URL is "existing" too (an export imported back).

import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ShortCode } from '../core/codes.ts';
import { DEFAULT_DOMAIN_ID } from '../core/domains.ts';
import { detectFormat, headerProblem, IMPORT_FORMATS, readRecords, type RowVerdict } from './import-formats.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { checkTargetUrl } from '../core/url-rules.ts';
import { AppError, isAppError, type ErrorCode } from '../errors.ts';
import type { Creator, LinkCreates } from './creates.ts';
import { creatorOf } from './create-routes.ts';
import { SECURITY } from '../api/schemas.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { errorResponses as errors } from '../errors.ts';
import { ImportQuery, ImportReport } from './schemas.ts';
import type { IdempotencyRecord, LinkStore } from './store.ts';
import { isCsvFile, parseCsv, type CsvFile } from './csv-file.ts';
import { type IdempotencyKey, type LinkRef } from '../core/link.ts';

export const IMPORT_BODY_LIMIT_BYTES = 5 * 1024 * 1024;
export const IMPORT_ROWS_MAX = 5000;
/** Rows in the write queue at once: a full file must not fill it for everyone else (WRITE_QUEUE_MAX). */
const ROWS_IN_FLIGHT = 1000;

export interface ImportDeps {
  creates: LinkCreates;
  store: Pick<LinkStore, 'idempotencyKeys' | 'details'>;
  shortUrls: ShortUrls;
  /** Where links may point: the rules that store a row's URL, to compare it with an existing link's. */
  policy: TargetPolicy;
  /** Route options of the creates (rate limits: a file costs one create per row). */
  createRouteConfig?: Record<string, unknown>;
}

type RowResult =
  | { row: number; status: 'created' | 'existing'; code: string; shortUrl: string; note?: string }
  | { row: number; status: 'failed'; error: { code: ErrorCode; message: string }; note?: string };

const IMPORT_LINKS = {
  summary: 'Import links from a CSV file, with a report per row',
  description:
    `The file is the body (Content-Type: text/csv, UTF-8, at most 5 MiB and ${IMPORT_ROWS_MAX} rows): this service's own ` +
    'layout (url, alias or code, expiresAt, tags, title; what GET /links/export.csv writes), or an export of Bitly, ' +
    'YOURLS, Kutt or Shlink, told apart by its header (format=auto) or named. Each row is created by the rules of a ' +
    'POST /links and counts against the same rate limit; a code that is a valid alias here is kept. Importing the same ' +
    'file again creates nothing: its rows come back "existing". Admins and members.',
  tags: ['links'],
  security: SECURITY,
  querystring: ImportQuery,
  consumes: ['text/csv'],
  body: { type: 'object', description: 'The CSV file (text/csv).' },
  response: { 200: ImportReport, ...errors(400, 401, 403, 413, 415, 429, 503) },
};

export async function importRoutes(app: FastifyInstance, deps: ImportDeps): Promise<void> {
  // CSV is read in this plugin only, and only CSV: every other route takes JSON alone.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    ['text/csv', 'application/csv'],
    { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT_BYTES },
    async (_request: unknown, body: Buffer) => readFile(body),
  );

  app.post(
    '/links/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT_BYTES,
      config: { ...deps.createRouteConfig, bodyType: 'text/csv (UTF-8)' },
      schema: IMPORT_LINKS,
    },
    async function importLinks(request) {
      // An import is a workspace's: it takes a key, whatever CREATE_REQUIRES_API_KEY says of single creates.
      const creator = creatorOf(request, true);
      const file = request.body;
      if (!isCsvFile(file)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as text/csv (UTF-8).');
      const { format: asked = 'auto', domain: host } = request.query as { format?: string; domain?: string };
      // Every row on one domain: looked up once, before any row (400 DOMAIN_UNKNOWN).
      const domain = await deps.shortUrls.servedDomainOf(host, creator.workspaceId);
      const onDomain = domain.id === DEFAULT_DOMAIN_ID ? {} : { domain: domain.host };
      const format = asked === 'auto' ? detectFormat(file.header) : IMPORT_FORMATS.find((known) => known === asked);
      if (format === undefined) {
        throw new AppError(
          'IMPORT_INVALID',
          asked === 'auto'
            ? `The columns (${file.header.slice(0, 12).join(', ')}) are not those of a format this service reads: ` +
                'name it with ?format=, or give a "url" column.'
            : `format must be one of auto, ${IMPORT_FORMATS.join(', ')}.`,
        );
      }
      const problem = headerProblem(format, file.header);
      if (problem !== undefined) throw new AppError('IMPORT_INVALID', problem);
      const verdicts = readRecords(format, file.header, file.records).map((verdict) =>
        verdict.ok ? { ...verdict, link: { ...verdict.link, ...onDomain } } : verdict,
      );
      // One lookup for the whole file: which rows were imported before.
      const keys = verdicts.flatMap((verdict) => (verdict.ok ? [rowKey(creator.workspaceId, verdict.link).key] : []));
      const used = await deps.store.idempotencyKeys(-creator.workspaceId, keys);
      // Past the workspace's share of the write queue, a row waits for room instead of failing.
      const rowCreator = { ...creator, share: 'wait' as const };
      const results = await inBatches(verdicts, ROWS_IN_FLIGHT, (verdict) => importRow(deps, rowCreator, domain.id, verdict, used));
      const count = (status: RowResult['status']) => results.filter((result) => result.status === status).length;
      return { format, rows: results.length, created: count('created'), existing: count('existing'), failed: count('failed'), results };
    },
  );
}

const unreadable = (why: string) => new AppError('IMPORT_INVALID', `The file cannot be read as CSV: ${why}.`);

async function readFile(body: Buffer): Promise<CsvFile> {
  // Checked without decoding the whole file into a string (the parser reads it in slices).
  if (!isUtf8(body)) throw unreadable('it is not UTF-8 text (save it as "CSV UTF-8")');
  let file: CsvFile;
  try {
    file = await parseCsv(body, IMPORT_ROWS_MAX);
  } catch (err) {
    throw unreadable(err instanceof RangeError ? `it has more than ${IMPORT_ROWS_MAX} rows: split it` : (err as Error).message);
  }
  if (file.header.length === 0 || file.records.length === 0) throw new AppError('IMPORT_INVALID', 'The file has no rows below its header.');
  return file;
}

async function importRow(
  deps: ImportDeps,
  creator: Creator,
  domainId: number,
  verdict: RowVerdict,
  used: ReadonlyMap<string, IdempotencyRecord>,
): Promise<RowResult> {
  const row = verdict.line;
  if (!verdict.ok) return { row, status: 'failed', error: { code: 'IMPORT_ROW_INVALID', message: verdict.message } };
  const note = verdict.note === undefined ? {} : { note: verdict.note };
  const { link } = verdict;
  const key = rowKey(creator.workspaceId, link);
  const shortUrl = (code: string) => deps.shortUrls.of({ domainId, code }).shortUrl;
  try {
    // A row never imported before is created without looking its key up again; one seen before
    // gets its link back (or hears that it was deleted since), from the record read with the file.
    const created = await deps.creates.create(link, creator, key, used.get(key.key) ?? null);
    return {
      row,
      status: created.replayed ? 'existing' : 'created',
      code: created.link.code,
      shortUrl: shortUrl(created.link.code),
      ...note,
    };
  } catch (err) {
    if (!isAppError(err)) throw err;
    if (
      err.code === 'ALIAS_TAKEN' &&
      link.alias !== undefined &&
      (await sameLink(deps, creator.workspaceId, { domainId, code: link.alias as ShortCode }, link.url))
    ) {
      return { row, status: 'existing', code: link.alias, shortUrl: shortUrl(link.alias), ...note };
    }
    return { row, status: 'failed', error: { code: err.code, message: err.message }, ...note };
  }
}

/** Whether the link `ref` names is in `workspaceId` and points at `url` (as the rules would store it). */
async function sameLink(deps: ImportDeps, workspaceId: number, ref: LinkRef, url: string): Promise<boolean> {
  const existing = await deps.store.details(ref);
  const stored = checkTargetUrl(url, deps.policy);
  return existing !== undefined && existing.workspaceId === workspaceId && existing.url === (stored.ok ? stored.url : url);
}

/** The row's Idempotency-Key: its content, scoped to the workspace (negative scopes are imports; API keys are positive, 0 anonymous). */
function rowKey(workspaceId: number, link: object): IdempotencyKey {
  const hash = createHash('sha256').update(JSON.stringify(link)).digest();
  return { scope: -workspaceId, key: `import:${hash.toString('base64url')}`, requestHash: hash };
}

/** `fn` over `items`, at most `limit` at a time, results in order. */
async function inBatches<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
