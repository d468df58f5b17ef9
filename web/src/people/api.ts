// The people routes of the API (docs/api.md): the first run, signing in with a password, resetting it, verifying an
// address, invitations, a person's profile and sessions, a workspace's members, settings and audit log.
import type { Static } from 'typebox';
import type { Role } from '../../../src/auth/roles.ts';
import type * as A from '../../../src/people/audit-schemas.ts';
import type * as S from '../../../src/people/schemas.ts';
import * as sdk from '../../../src/client/operations.ts';
import type { Api, ApiClient, Session } from '../api/client.ts';

/** What the sign-in page may offer (`mail`: links are emailed; without it, people pass them on), and whether the first admin is still to be set up. */
export type AuthOptions = Static<typeof S.AuthOptions>;
/** `tokenRequired`: from an address other than loopback, the token the server logged at start is asked for. */
export type SetupState = Static<typeof S.SetupState>;
export type SetupBody = Static<typeof S.SetupBody>;
export type Person = Static<typeof S.PersonView>;
export type Member = Static<typeof S.MemberView>;
export type Invitation = Static<typeof S.InvitationView>;
/** A new invitation: mailed (`sent`), or its link to pass on (`url`) when the service sends no mail. */
export type CreatedInvitation = Static<typeof S.CreatedInvitation>;
/** An invitation as its link's holder sees it; `account`: a person with its address exists, and signs in to accept. */
export type InvitationView = Static<typeof S.InvitationPreview>;
export type PersonSession = Static<typeof S.SessionList>['sessions'][number];
export type WorkspaceSettings = Static<typeof S.WorkspaceSettings>;
export type WorkspaceChanges = S.WorkspaceSettingsBody;
export type AuditEntry = Static<typeof A.AuditEntryView>;
type AuditList = Static<typeof A.AuditList>;
/** The audit log's filters (without the page's cursor and size). */
export type AuditQuery = Static<typeof A.AuditExportQuery>;

// Before a session: the first run, signing in, a forgotten password, an emailed link.

export async function getAuthOptions(api: Api, signal?: AbortSignal): Promise<AuthOptions> {
  const { data } = await sdk.getAuthOptions({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data;
}

export async function getSetup(api: Api, signal?: AbortSignal): Promise<SetupState> {
  const { data } = await sdk.getAuthSetup({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data;
}

export function setUp(api: ApiClient, body: SetupBody): Promise<Session> {
  return api.startSession(sdk.postAuthSetup({ client: api.client, throwOnError: true, body }));
}

export async function requestPasswordReset(api: Api, email: string): Promise<void> {
  await sdk.postAuthPasswordReset({ client: api.client, throwOnError: true, body: { email } });
}

export async function confirmPasswordReset(api: Api, token: string, password: string): Promise<void> {
  await sdk.postAuthPasswordResetConfirm({ client: api.client, throwOnError: true, body: { token, password } });
}

export async function verifyEmail(api: Api, token: string): Promise<void> {
  await sdk.postAuthEmailVerify({ client: api.client, throwOnError: true, body: { token } });
}

export async function viewInvitation(api: Api, token: string, signal?: AbortSignal): Promise<InvitationView> {
  const { data } = await sdk.getAuthInvitationsByToken({ client: api.client, throwOnError: true, path: { token }, signal: signal ?? null });
  return data;
}

/** With `account` (name and password), a new person; without, the signed-in person joins. */
export function acceptInvitation(api: ApiClient, token: string, account?: { name: string; password: string }): Promise<Session> {
  const body = account ?? {};
  return api.startSession(sdk.postAuthInvitationsByTokenAccept({ client: api.client, throwOnError: true, path: { token }, body }));
}

export function switchWorkspace(api: ApiClient, workspaceId: number): Promise<Session> {
  return api.startSession(sdk.postAuthSessionWorkspace({ client: api.client, throwOnError: true, body: { workspaceId } }));
}

// The signed-in person.

export async function updateName(api: Api, name: string): Promise<Person> {
  const { data } = await sdk.patchAuthProfile({ client: api.client, throwOnError: true, body: { name } });
  return data;
}

export async function changePassword(api: Api, currentPassword: string, newPassword: string): Promise<void> {
  await sdk.putAuthPassword({ client: api.client, throwOnError: true, body: { currentPassword, newPassword } });
}

export async function changeEmail(api: Api, email: string, password: string): Promise<Person> {
  const { data } = await sdk.putAuthEmail({ client: api.client, throwOnError: true, body: { email, password } });
  return data;
}

export async function resendVerification(api: Api): Promise<void> {
  await sdk.postAuthEmailVerification({ client: api.client, throwOnError: true });
}

export async function listSessions(api: Api, signal?: AbortSignal): Promise<PersonSession[]> {
  const { data } = await sdk.getAuthSessions({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.sessions;
}

export async function closeSession(api: Api, id: string): Promise<void> {
  await sdk.deleteAuthSessionsById({ client: api.client, throwOnError: true, path: { id } });
}

// The workspace's people.

export async function listMembers(api: Api, signal?: AbortSignal): Promise<Member[]> {
  const { data } = await sdk.getMembers({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.members;
}

export async function changeRole(api: Api, id: number, role: Role): Promise<Member> {
  const { data } = await sdk.patchMembersById({ client: api.client, throwOnError: true, path: { id: String(id) }, body: { role } });
  return data;
}

/** An admin removes a member; a member removes themselves (leaves). */
export async function removeMember(api: Api, id: number): Promise<void> {
  await sdk.deleteMembersById({ client: api.client, throwOnError: true, path: { id: String(id) } });
}

export async function makeResetLink(api: Api, id: number): Promise<Static<typeof S.ResetLink>> {
  const { data } = await sdk.postMembersByIdResetLink({ client: api.client, throwOnError: true, path: { id: String(id) } });
  return data;
}

export async function listInvitations(api: Api, signal?: AbortSignal): Promise<Invitation[]> {
  const { data } = await sdk.getInvitations({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.invitations;
}

export async function invite(api: Api, email: string, role: Role): Promise<CreatedInvitation> {
  const { data } = await sdk.postInvitations({ client: api.client, throwOnError: true, body: { email, role } });
  return data;
}

export async function withdrawInvitation(api: Api, id: number): Promise<void> {
  await sdk.deleteInvitationsById({ client: api.client, throwOnError: true, path: { id: String(id) } });
}

export async function getWorkspace(api: Api, signal?: AbortSignal): Promise<WorkspaceSettings> {
  const { data } = await sdk.getWorkspace({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data;
}

export async function updateWorkspace(api: Api, changes: WorkspaceChanges): Promise<WorkspaceSettings> {
  const { data } = await sdk.patchWorkspace({ client: api.client, throwOnError: true, body: changes });
  return data;
}

/** GET /audit's query parameters. */
type AuditParams = NonNullable<sdk.GetAuditData['query']>;

/** The audit query (auditQuery sets only the filters given) as the API's parameters, with the page's cursor. */
export function auditParams(query: AuditQuery, cursor: string | null = null): AuditParams {
  return cursor === null ? { ...query } : { ...query, cursor };
}

export async function listAudit(api: Api, query: AuditQuery, cursor: string | null, signal?: AbortSignal): Promise<AuditList> {
  const { data } = await sdk.getAudit({
    client: api.client,
    throwOnError: true,
    query: auditParams(query, cursor),
    signal: signal ?? null,
  });
  return data;
}

/** The CSV download of the same entries (the browser sends the session cookie with the link). */
export function auditExportHref(query: AuditQuery): string {
  const search = new URLSearchParams(auditParams(query)).toString();
  return `/audit/export${search === '' ? '' : `?${search}`}`;
}
