// The shapes of the operators' API (queue-routes.ts), in TypeBox: its routes' schemas, the OpenAPI
// document's, and the dashboard's types (web/src/operators/api.ts) alike.

import { Type, type Static } from 'typebox';
import { literals } from '../api/schemas.ts';
import { REPORT_ACTIONS, REPORT_REASONS, REPORT_STATUSES } from './reports.ts';

export const SESSION_ONLY = [{ session: [] }];
export const tags = ['operators'];

export const ReportsQuery = Type.Object({
  status: Type.Optional(literals(REPORT_STATUSES)),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
});
export const ReportGroupSchema = Type.Object({
  id: Type.Integer({ description: 'The newest report of the group: acting on it acts on every open report of the link.' }),
  shortUrl: Type.String(),
  code: Type.String(),
  status: literals(REPORT_STATUSES),
  count: Type.Integer(),
  reasons: Type.Array(literals(REPORT_REASONS)),
  firstAt: Type.String({ format: 'date-time' }),
  lastAt: Type.String({ format: 'date-time' }),
  link: Type.Union([
    Type.Object({
      url: Type.String(),
      disabled: Type.Boolean(),
      safety: Type.Union([Type.String(), Type.Null()]),
      safetyList: Type.Union([Type.String(), Type.Null()]),
      workspace: Type.Object({ id: Type.Integer(), name: Type.String(), suspended: Type.Boolean() }),
    }),
    Type.Null(),
  ]),
  action: Type.Union([literals(REPORT_ACTIONS), Type.Null()]),
  handledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  notes: Type.Array(
    Type.Object({
      id: Type.Integer(),
      reason: literals(REPORT_REASONS),
      message: Type.Union([Type.String(), Type.Null()]),
      email: Type.Union([Type.String(), Type.Null()]),
      createdAt: Type.String({ format: 'date-time' }),
    }),
  ),
});
export const ReportList = Type.Object({ groups: Type.Array(ReportGroupSchema) });
export const ActionBody = Type.Object({ action: literals(REPORT_ACTIONS) }, { additionalProperties: false });
export const WorkspaceList = Type.Object({
  workspaces: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      members: Type.Integer(),
      links: Type.Integer(),
      suspended: Type.Boolean(),
      suspendedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    }),
  ),
});
export const SuspendBody = Type.Object({ suspended: Type.Boolean() }, { additionalProperties: false });
export const IdParams = Type.Object({ id: Type.String({ maxLength: 20 }) });
export const Done = { type: 'null', description: 'Done.' } as const;

export const OperatorState = Type.Object({ operator: Type.Boolean() });
export type ReportList = Static<typeof ReportList>;
export type ReportGroupView = Static<typeof ReportGroupSchema>;
export type WorkspaceList = Static<typeof WorkspaceList>;
export type ReportsQuery = Static<typeof ReportsQuery>;
