// The shapes of the audit log's routes, in TypeBox (see links/schemas.ts for what they are used for).

import { Type } from 'typebox';
import { AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX } from '../audit/query.ts';

const filters = {
  actor: Type.Optional(Type.String({ description: 'Entries of the person with this id, or of a key: `key:<id>`.' })),
  action: Type.Optional(
    Type.String({ description: 'An action (`member.invite`), or every action of a kind (`member.*`).', examples: ['link.*'] }),
  ),
  target: Type.Optional(Type.String({ description: 'A type of target (`link`), or one target (`link:spring`, `domain:go.acme.com`).' })),
  from: Type.Optional(Type.String({ description: 'Entries at or after this date-time (RFC 3339, with a time zone).' })),
  to: Type.Optional(Type.String({ description: 'Entries before this date-time.' })),
};

export const AuditQuery = Type.Object(
  {
    ...filters,
    cursor: Type.Optional(Type.String({ description: 'nextCursor of the page before; leave out for the first page.' })),
    limit: Type.Optional(Type.String({ description: `Entries per page, 1–${AUDIT_LIMIT_MAX} (default ${AUDIT_LIMIT_DEFAULT}).` })),
  },
  { additionalProperties: false },
);

export const AuditExportQuery = Type.Object(filters, { additionalProperties: false });

/** What an entry recorded of a target, as it was: free-form, never a secret. */
const Snapshot = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);

export const AuditEntryView = Type.Object({
  id: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Union(
    [
      Type.Object({
        personId: Type.Union([Type.Integer(), Type.Null()]),
        keyId: Type.Union([Type.Integer(), Type.Null()]),
        name: Type.Union([Type.String(), Type.Null()], { description: 'As it was then.' }),
      }),
      Type.Null(),
    ],
    { description: 'null: nobody was signed in (a failed sign-in).' },
  ),
  action: Type.String({ examples: ['link.update'] }),
  target: Type.Object({ type: Type.String({ examples: ['link'] }), id: Type.Union([Type.String(), Type.Null()]) }),
  before: Snapshot,
  after: Snapshot,
  address: Type.Union([Type.String(), Type.Null()], { description: 'The client’s address, truncated to its /24 (IPv4) or /48 (IPv6).' }),
});

export const AuditList = Type.Object({
  entries: Type.Array(AuditEntryView, { description: 'Newest first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Give it as `cursor` for the next page; null: this was the last.' }),
});
