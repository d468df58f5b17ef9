// GET /audit and GET /audit/export: a workspace's audit log, its admins' alone, a keyset page at a
// time or as a CSV file (streamed a page at a time, AUDIT_EXPORT_MAX rows at most); an export is
// itself recorded. And auditPart, the hourly retention of the log (audit/retention.ts). What is
// recorded and how: audit/audit.ts, docs/audit.md.

import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { SECURITY } from '../api/schemas.ts';
import { actorOf } from '../audit/audit.ts';
import { AUDIT_EXPORT_COLUMNS, AUDIT_EXPORT_MAX, AUDIT_EXPORT_PAGE, auditCsvHeader, auditCsvLines } from '../audit/export.ts';
import { encodeAuditCursor, readAuditFilter, readAuditQuery, type AuditFilter } from '../audit/query.ts';
import { AuditRetention } from '../audit/retention.ts';
import { AuditStore, type AuditRecord, type AuditStoreDeps } from '../audit/store.ts';
import { requireAdmin } from '../auth/authenticate.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import { AuditExportQuery, AuditList, AuditQuery } from './audit-schemas.ts';

/** The auth pool and its breaker (db/plugin.ts). */
export type AuditDeps = AuditStoreDeps;

const LIST_AUDIT = {
  summary: "The workspace's audit log",
  description:
    'Admins only. Who did what to which target, when, from which address (truncated), with what it was before and after ' +
    '(never a secret); newest first, a keyset page at a time (give nextCursor as cursor). The actions: docs/audit.md.',
  tags: ['audit'],
  security: SECURITY,
  querystring: AuditQuery,
  response: { 200: AuditList, ...errors(400, 401, 403, 503) },
};

const EXPORT_AUDIT = {
  summary: "The workspace's audit log as a CSV file",
  description:
    `Admins only. Columns: ${AUDIT_EXPORT_COLUMNS.join(', ')}; before and after as JSON. The same filters as GET /audit; ` +
    `newest first; at most ${AUDIT_EXPORT_MAX} rows (narrow from and to for more). A cell that would start a spreadsheet ` +
    'formula is written after a "\'". The export is itself recorded (audit.export).',
  tags: ['audit'],
  security: SECURITY,
  querystring: AuditExportQuery,
  response: {
    200: { description: 'The CSV file.', content: { 'text/csv': { schema: { type: 'string' } } } },
    ...errors(400, 401, 403, 503),
  },
};

function entryView(entry: AuditRecord) {
  const { actorPersonId: personId, actorKeyId: keyId, actorName: name } = entry;
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: personId === null && keyId === null ? null : { personId, keyId, name },
    action: entry.action,
    target: { type: entry.targetType, id: entry.targetId },
    before: entry.before ?? null,
    after: entry.after ?? null,
    address: entry.address,
  };
}

/** The filter as an entry records it: what was asked, by the names of the query. */
function filterNote(query: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(query).filter((pair): pair is [string, string] => pair[1] !== undefined));
}

export async function auditRoutes(plain: FastifyInstance, { db, breaker }: AuditDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const store = new AuditStore(db, breaker);

  app.get('/audit', { schema: LIST_AUDIT, config: { queryError: 'AUDIT_QUERY_INVALID' } }, async function listAudit(request) {
    const key = requireAdmin(request, 'audit log');
    const verdict = readAuditQuery(request.query);
    if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
    const { entries, next } = await store.page(key.workspaceId, verdict.request);
    return { entries: entries.map(entryView), nextCursor: next === undefined ? null : encodeAuditCursor(next) };
  });

  app.get(
    '/audit/export',
    { schema: EXPORT_AUDIT, config: { queryError: 'AUDIT_QUERY_INVALID' } },
    async function exportAudit(request, reply) {
      const key = requireAdmin(request, 'audit log');
      const filter = readAuditFilter(request.query);
      if (typeof filter === 'string') throw new AppError('AUDIT_QUERY_INVALID', filter);
      // Recorded before a row is read: an export the log cannot record is not made.
      await store.record(actorOf(key, request.ip), {
        workspaceId: key.workspaceId,
        action: 'audit.export',
        targetType: 'audit',
        targetId: null,
        after: filterNote(request.query),
      });
      const pages = exportPages(store, key.workspaceId, filter);
      // The first page is read before answering: a database that cannot answer is a 503, not a cut file.
      const first = await pages.next();
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-${day}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(exportLines(first, pages)));
    },
  );
}

/** The export's pages, AUDIT_EXPORT_PAGE entries each, AUDIT_EXPORT_MAX in all. */
async function* exportPages(store: AuditStore, workspaceId: number, filter: AuditFilter): AsyncGenerator<AuditRecord[]> {
  let before: number | undefined;
  let left = AUDIT_EXPORT_MAX;
  do {
    const page = await store.page(workspaceId, { filter, limit: Math.min(AUDIT_EXPORT_PAGE, left), before });
    yield page.entries;
    left -= page.entries.length;
    before = page.next;
  } while (before !== undefined && left > 0);
}

async function* exportLines(first: IteratorResult<AuditRecord[]>, rest: AsyncGenerator<AuditRecord[]>): AsyncGenerator<string> {
  yield auditCsvHeader();
  if (first.done === true) return;
  yield auditCsvLines(first.value);
  for await (const entries of rest) yield auditCsvLines(entries);
}

export interface AuditPartOptions extends AuditDeps {
  readonly log: Logger;
}

/** The audit log's retention: a round at start, then hourly on this instance; stopped on close. */
export async function auditPart(app: FastifyInstance, { db, breaker, log }: AuditPartOptions): Promise<void> {
  const store = new AuditStore(db, breaker);
  const retention = new AuditRetention(() => store.dropExpired(), log);
  await retention.start();
  app.addHook('onClose', async () => retention.stop());
}
