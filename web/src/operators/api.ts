// The operators' routes (src/operators/queue-routes.ts), through the generated operations. The types are
// the server's schemas', as everywhere.
import type { ReportAction, ReportStatus } from '../../../src/operators/reports.ts';
import type { ReportGroupView, WorkspaceList } from '../../../src/operators/schemas.ts';
import * as sdk from '../../../src/client/operations.ts';
import type { Api } from '../api/client.ts';

export type ReportGroup = ReportGroupView;
export type OperatorWorkspace = WorkspaceList['workspaces'][number];
export type { ReportAction, ReportStatus };

export async function isOperator(api: Api, signal?: AbortSignal): Promise<boolean> {
  const { data } = await sdk.getOperatorMe({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.operator;
}

export async function listReports(api: Api, status: ReportStatus, signal?: AbortSignal): Promise<ReportGroup[]> {
  const { data } = await sdk.getOperatorReports({ client: api.client, throwOnError: true, query: { status }, signal: signal ?? null });
  return data.groups;
}

export async function actOnReport(api: Api, id: number, action: ReportAction): Promise<void> {
  await sdk.postOperatorReportsByIdAction({ client: api.client, throwOnError: true, path: { id: String(id) }, body: { action } });
}

export async function listWorkspaces(api: Api, signal?: AbortSignal): Promise<OperatorWorkspace[]> {
  const { data } = await sdk.getOperatorWorkspaces({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.workspaces;
}

export async function setSuspended(api: Api, id: number, suspended: boolean): Promise<void> {
  await sdk.patchOperatorWorkspacesById({ client: api.client, throwOnError: true, path: { id: String(id) }, body: { suspended } });
}
