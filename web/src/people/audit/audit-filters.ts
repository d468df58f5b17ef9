// The audit log's filters as they live in the address bar (a view can be bookmarked, Back works) and as they are
// sent to the API: days in the browser's time zone become the instants that bound them.
import type { AuditQuery } from '../api.ts';

export interface AuditFilters {
  action: string;
  /** A person's id; '' for anyone. */
  actor: string;
  /** YYYY-MM-DD, or ''. */
  from: string;
  to: string;
}

export const NO_FILTERS: AuditFilters = { action: '', actor: '', from: '', to: '' };

/** The actions the log records, in the order the filter offers them: docs/audit.md's (test/ops/audit-actions-docs.test.ts). */
export const AUDIT_ACTIONS = [
  'person.setup',
  'person.sign-in',
  'person.sign-in-failed',
  'person.password',
  'person.email',
  'person.passkey-add',
  'person.passkey-remove',
  'person.totp-enable',
  'person.totp-disable',
  'person.recovery-codes',
  'member.invite',
  'member.invite-revoke',
  'member.join',
  'member.role',
  'member.remove',
  'member.reset-link',
  'key.create',
  'key.revoke',
  'workspace.settings',
  'domain.add',
  'domain.update',
  'domain.verify',
  'domain.remove',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.secret-rotate',
  'link.update',
  'link.delete',
  'link.health-probes',
  'links.export',
  'audit.export',
  'report.handle',
  'blocklist.add',
  'workspace.suspend',
  'workspace.unsuspend',
] as const;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const day = (value: string | undefined): string => (value !== undefined && DAY.test(value) ? value : '');

export function readAuditFilters(query: Record<string, string | undefined>): AuditFilters {
  return {
    action: query['action'] ?? '',
    actor: /^\d+$/.test(query['actor'] ?? '') ? (query['actor'] as string) : '',
    from: day(query['from']),
    to: day(query['to']),
  };
}

/** The dashboard's own query string: only the filters that are set. */
export function auditSearch(filters: AuditFilters): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== '') params.set(name, value);
  const search = params.toString();
  return search === '' ? '' : `?${search}`;
}

export function hasAuditFilters(filters: AuditFilters): boolean {
  return Object.values(filters).some((value) => value !== '');
}

/** The API's query: `from` is the start of its day, `to` the end of its day, both in the browser's time zone. */
export function auditQuery(filters: AuditFilters): AuditQuery {
  const query: AuditQuery = {};
  if (filters.action !== '') query.action = filters.action;
  if (filters.actor !== '') query.actor = filters.actor;
  if (filters.from !== '') query.from = new Date(`${filters.from}T00:00:00`).toISOString();
  if (filters.to !== '') query.to = new Date(new Date(`${filters.to}T00:00:00`).getTime() + 86_400_000).toISOString();
  return query;
}

/** An entry's `before` and `after` as lines of what changed: a field's old value and new one. */
export function changesOf(before: unknown, after: unknown): { field: string; before: string | null; after: string | null }[] {
  const b = asRecord(before);
  const a = asRecord(after);
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return fields
    .map((field) => ({ field, before: field in b ? show(b[field]) : null, after: field in a ? show(a[field]) : null }))
    .filter((change) => change.before !== change.after);
}

function asRecord(value: unknown): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return { value };
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
