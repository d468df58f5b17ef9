// The operators' routes (src/operators/queue-routes.ts), called through the client's generic methods: the
// generated operations for them come with the next `npm run client`, and these calls move to them then
// (getOperatorMe, getOperatorReports, postOperatorReportsByIdAction, getOperatorWorkspaces,
// patchOperatorWorkspacesById). The types are the server's schemas', as everywhere.
import type { ReportAction, ReportStatus } from '../../../src/operators/reports.ts';
import type { ReportGroupView, ReportList, WorkspaceList } from '../../../src/operators/schemas.ts';
import type { Api } from '../api/client.ts';

export type ReportGroup = ReportGroupView;
export type OperatorWorkspace = WorkspaceList['workspaces'][number];
export type { ReportAction, ReportStatus };

export async function isOperator(api: Api, signal?: AbortSignal): Promise<boolean> {
  const { data } = await api.client.get<{ 200: { operator: boolean } }, unknown, true>({
    url: '/operator/me',
    throwOnError: true,
    signal: signal ?? null,
  });
  return data.operator;
}

export async function listReports(api: Api, status: ReportStatus, signal?: AbortSignal): Promise<ReportGroup[]> {
  const { data } = await api.client.get<{ 200: ReportList }, unknown, true>({
    url: '/operator/reports',
    query: { status },
    throwOnError: true,
    signal: signal ?? null,
  });
  return data.groups;
}

export async function actOnReport(api: Api, id: number, action: ReportAction): Promise<void> {
  await api.client.post<{ 204: null }, unknown, true>({
    url: '/operator/reports/{id}/action',
    path: { id: String(id) },
    body: { action },
    headers: { 'content-type': 'application/json' },
    throwOnError: true,
  });
}

export async function listWorkspaces(api: Api, signal?: AbortSignal): Promise<OperatorWorkspace[]> {
  const { data } = await api.client.get<{ 200: WorkspaceList }, unknown, true>({
    url: '/operator/workspaces',
    throwOnError: true,
    signal: signal ?? null,
  });
  return data.workspaces;
}

export async function setSuspended(api: Api, id: number, suspended: boolean): Promise<void> {
  await api.client.patch<{ 204: null }, unknown, true>({
    url: '/operator/workspaces/{id}',
    path: { id: String(id) },
    body: { suspended },
    headers: { 'content-type': 'application/json' },
    throwOnError: true,
  });
}
