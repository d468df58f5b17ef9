// The audit log as CSV (GET /audit/export): a header, then an entry a line, before and after as
// JSON text. What people typed (a key's or a person's name, a target's id, the JSON) is written
// formula-safe (api/csv.ts): a spreadsheet opening the file runs nothing.

import { csvLine } from '../api/csv.ts';
import type { AuditRecord } from './store.ts';

export const AUDIT_EXPORT_COLUMNS = [
  'id',
  'at',
  'actor_person_id',
  'actor_key_id',
  'actor_name',
  'action',
  'target_type',
  'target_id',
  'address',
  'before',
  'after',
] as const;

/** Rows one export writes at most; a longer log is exported by time ranges (from, to). */
export const AUDIT_EXPORT_MAX = 100_000;
/** Entries read a statement. */
export const AUDIT_EXPORT_PAGE = 1000;

const idCell = (id: number | null): string => (id === null ? '' : String(id));
const jsonCell = (value: unknown) => ({ text: value === null || value === undefined ? '' : JSON.stringify(value) });

export function auditCsvHeader(): string {
  return csvLine(AUDIT_EXPORT_COLUMNS);
}

export function auditCsvLines(entries: readonly AuditRecord[]): string {
  return entries
    .map((entry) =>
      csvLine([
        String(entry.id),
        entry.at.toISOString(),
        idCell(entry.actorPersonId),
        idCell(entry.actorKeyId),
        { text: entry.actorName ?? '' },
        { text: entry.action },
        { text: entry.targetType },
        { text: entry.targetId ?? '' },
        entry.address ?? '',
        jsonCell(entry.before),
        jsonCell(entry.after),
      ]),
    )
    .join('');
}
