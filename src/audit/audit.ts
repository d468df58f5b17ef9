// The audit log's writer (migrations/0016_people.sql audit_log): who did what to which target, with
// what it was before and after, from which address. An entry is written on the connection of the
// change's own transaction (recordAudit), or by the change's own statement (auditCte), so that it
// commits with the change or not at all. Secrets are never written: recordAudit drops them from
// before and after whatever the caller passed, and the statements of auditCte pick their fields.
// What is recorded, and what is not: docs/audit.md.

import { isIPv4, isIPv6 } from 'node:net';
import type { Queryable } from '../db/pool.ts';

/** Who acted: a person (through their key), a key, or nobody (both null: a failed sign-in). */
export interface Actor {
  readonly personId: number | null;
  readonly keyId: number | null;
  readonly name: string | null;
  /** The client's address, truncated (truncatedAddress). */
  readonly address: string | null;
}

export interface AuditEntry {
  readonly workspaceId: number | null;
  /** `<target>.<verb>`, as `link.update` (docs/audit.md lists them). */
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string | number | null;
  readonly before?: object | null;
  readonly after?: object | null;
}

/** The most bytes of JSON kept of each of before and after; a larger one is written as TRUNCATED. */
export const AUDIT_JSON_MAX_BYTES = 8192;
const TRUNCATED = '{"truncated": true}';

const COLUMNS = 'workspace_id, actor_person_id, actor_key_id, actor_name, action, target_type, target_id, before, after, address';

/** One INSERT on `db` — the caller passes the client of its own transaction, so the entry commits with the change or not at all. */
export async function recordAudit(db: Queryable, actor: Actor, entry: AuditEntry): Promise<void> {
  await db.query(`INSERT INTO audit_log (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
    entry.workspaceId,
    actor.personId,
    actor.keyId,
    actor.name,
    entry.action,
    entry.targetType,
    entry.targetId === null ? null : String(entry.targetId),
    auditJson(entry.before),
    auditJson(entry.after),
    actor.address,
  ]);
}

/** The actor of a request: its key (Principal-shaped: { id, name, personId }) or null, and its address truncated. */
export function actorOf(key: { readonly id: number; readonly name: string; readonly personId: number | null } | null, ip: string): Actor {
  const address = truncatedAddress(ip);
  return {
    personId: key?.personId ?? null,
    keyId: key?.id ?? null,
    name: key?.name ?? null,
    address: address === '' ? null : address,
  };
}

/** IPv4 to its /24 (203.0.113.0), IPv6 to its /48 (2001:db8:1::), IPv4-mapped IPv6 as IPv4; '' for what is no address. */
export function truncatedAddress(ip: string): string {
  const bare = ip.replace(/%.*$/, '');
  if (isIPv4(bare)) return bare.replace(/\.\d+$/, '.0');
  if (!isIPv6(bare)) return '';
  const hextets = expandIPv6(bare);
  // ::ffff:a.b.c.d, the way a dual-stack socket shows an IPv4 client.
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    const [hi = 0, lo = 0] = hextets.slice(6);
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.0`;
  }
  // RFC 5952: the tail of five zero hextets is the longest run, so it is the one written as "::".
  const head = hextets.slice(0, 3);
  while (head.length > 0 && head.at(-1) === 0) head.pop();
  return `${head.map((h) => h.toString(16)).join(':')}::`;
}

/** The eight hextets of a valid IPv6 address (a trailing dotted IPv4 part counts as two). */
function expandIPv6(ip: string): number[] {
  let text = ip.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const head = hextetsOf(left);
  const tail = hextetsOf(right);
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

function hextetsOf(part: string | undefined): number[] {
  return part === undefined || part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16));
}

/** Key names never written, compared without case and without separators (`signing_secret` is `signingsecret`). */
const SECRET_NAMES: ReadonlySet<string> = new Set(['password', 'secret', 'token', 'hash', 'apikey', 'secretkey', 'privatekey', 'passtag']);
/** Nor any key whose name ends so: passwordHash, csrfToken, signingSecret, previousSecret, verificationToken... */
const SECRET_ENDINGS = ['password', 'secret', 'token', 'hash'];
/** An API key's or a webhook secret's look (auth/api-keys.ts, webhooks/service.ts). */
const SECRET_VALUE = /^(sk_|whsec_)/;
/** Deeper than this, a value is cut: nothing recorded is that deep, and a cycle must end. */
const DEPTH_MAX = 16;

function isSecretName(name: string): boolean {
  const bare = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAMES.has(bare) || SECRET_ENDINGS.some((ending) => bare.endsWith(ending));
}

/** `value` without the keys that hold secrets, at any depth; a key named `key` goes when it holds an API key's secret. */
export function withoutSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= DEPTH_MAX) return null;
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((item) => withoutSecrets(item, depth + 1));
  const kept: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    if (isSecretName(name)) continue;
    if (typeof item === 'string' && SECRET_VALUE.test(item)) continue;
    kept[name] = withoutSecrets(item, depth + 1);
  }
  return kept;
}

/** before or after as the column takes it: JSON text without secrets, TRUNCATED past AUDIT_JSON_MAX_BYTES; null for none. */
export function auditJson(value: object | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(withoutSecrets(value));
  return Buffer.byteLength(text) > AUDIT_JSON_MAX_BYTES ? TRUNCATED : text;
}

/** What an auditCte writes for each row of its source, each as SQL over that source. */
export interface AuditRows {
  /** The FROM clause (a CTE of the changed rows, joined to what names them). */
  readonly from: string;
  readonly workspaceId: string;
  /** Text. */
  readonly targetId: string;
  /** jsonb, or NULL::jsonb. Nothing strips secrets here: pick the fields. */
  readonly before: string;
  readonly after: string;
}

/** `x` as written: TRUNCATED past AUDIT_JSON_MAX_BYTES (as jsonb prints it). */
const capped = (x: string) => `CASE WHEN octet_length((${x})::text) > ${AUDIT_JSON_MAX_BYTES} THEN '${TRUNCATED}'::jsonb ELSE (${x}) END`;

/**
 * For a change made by one statement: a CTE, `audited AS (…)`, that writes an entry for each row of
 * `rows.from`, in the same statement (WITH changed AS (UPDATE … RETURNING …), audited AS (…) …).
 * The actor, action and target type are parameters $first to $first+5: auditParams gives their
 * values, in order. Nothing is written when the actor is null.
 */
export function auditCte(first: number, rows: AuditRows): string {
  const p = (n: number) => `$${first + n}`;
  return `audited AS (
       INSERT INTO audit_log (${COLUMNS})
       SELECT ${rows.workspaceId}, ${p(0)}::bigint, ${p(1)}::bigint, ${p(2)}::text, ${p(3)}::text, ${p(4)}::text,
         (${rows.targetId})::text, ${capped(rows.before)}, ${capped(rows.after)}, ${p(5)}::text
       FROM ${rows.from} WHERE ${p(3)}::text IS NOT NULL
     )`;
}

/** The values of an auditCte's parameters; all null (nothing written) without an actor. */
export function auditParams(actor: Actor | null, action: string, targetType: string): unknown[] {
  if (actor === null) return [null, null, null, null, null, null];
  return [actor.personId, actor.keyId, actor.name, action, targetType, actor.address];
}
