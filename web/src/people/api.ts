// The people routes of the API (docs/api.md): the first run, signing in with a password, resetting it, verifying an
// address, invitations, a person's profile and sessions, a workspace's members, settings and audit log.
import type { Static } from 'typebox';
import type { Role } from '../../../src/auth/roles.ts';
import type * as A from '../../../src/people/audit-schemas.ts';
import type * as S from '../../../src/people/schemas.ts';
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

const NOT_SIGNED_IN = { signedOutHandler: false } as const;

// Before a session: the first run, signing in, a forgotten password, an emailed link.

export function getAuthOptions(api: Api, signal?: AbortSignal): Promise<AuthOptions> {
  return api.request<AuthOptions>('/auth/options', { signal, ...NOT_SIGNED_IN });
}

export function getSetup(api: Api, signal?: AbortSignal): Promise<SetupState> {
  return api.request<SetupState>('/auth/setup', { signal, ...NOT_SIGNED_IN });
}

export function setUp(api: ApiClient, body: SetupBody): Promise<Session> {
  return api.startSession('/auth/setup', body);
}

export function signInWithPassword(api: ApiClient, email: string, password: string): Promise<Session> {
  return api.startSession('/auth/sign-in', { email, password } satisfies S.PasswordSignInBody);
}

export function requestPasswordReset(api: Api, email: string): Promise<void> {
  return api.request<void>('/auth/password-reset', { method: 'POST', json: { email } satisfies S.ResetRequestBody, ...NOT_SIGNED_IN });
}

export function confirmPasswordReset(api: Api, token: string, password: string): Promise<void> {
  return api.request<void>('/auth/password-reset/confirm', {
    method: 'POST',
    json: { token, password } satisfies S.ResetBody,
    ...NOT_SIGNED_IN,
  });
}

export function verifyEmail(api: Api, token: string): Promise<void> {
  return api.request<void>('/auth/email/verify', { method: 'POST', json: { token } satisfies S.TokenBody, ...NOT_SIGNED_IN });
}

export function viewInvitation(api: Api, token: string, signal?: AbortSignal): Promise<InvitationView> {
  return api.request<InvitationView>(`/auth/invitations/${encodeURIComponent(token)}`, { signal, ...NOT_SIGNED_IN });
}

/** With `account` (name and password), a new person; without, the signed-in person joins. */
export function acceptInvitation(api: ApiClient, token: string, account?: { name: string; password: string }): Promise<Session> {
  return api.startSession(`/auth/invitations/${encodeURIComponent(token)}/accept`, (account ?? {}) satisfies S.AcceptBody);
}

export function switchWorkspace(api: ApiClient, workspaceId: number): Promise<Session> {
  return api.startSession('/auth/session/workspace', { workspaceId } satisfies S.SwitchBody);
}

// The signed-in person.

export function updateName(api: Api, name: string): Promise<Person> {
  return api.request<Person>('/auth/profile', { method: 'PATCH', json: { name } satisfies S.ProfileBody });
}

export function changePassword(api: Api, currentPassword: string, newPassword: string): Promise<void> {
  return api.request<void>('/auth/password', { method: 'PUT', json: { currentPassword, newPassword } satisfies S.PasswordChangeBody });
}

export function changeEmail(api: Api, email: string, password: string): Promise<Person> {
  return api.request<Person>('/auth/email', { method: 'PUT', json: { email, password } satisfies S.EmailChangeBody });
}

export function resendVerification(api: Api): Promise<void> {
  return api.request<void>('/auth/email/verification', { method: 'POST' });
}

export async function listSessions(api: Api, signal?: AbortSignal): Promise<PersonSession[]> {
  return (await api.request<Static<typeof S.SessionList>>('/auth/sessions', { signal })).sessions;
}

export function closeSession(api: Api, id: string): Promise<void> {
  return api.request<void>(`/auth/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

// The workspace's people.

export async function listMembers(api: Api, signal?: AbortSignal): Promise<Member[]> {
  return (await api.request<Static<typeof S.MemberList>>('/members', { signal })).members;
}

export function changeRole(api: Api, id: number, role: Role): Promise<Member> {
  return api.request<Member>(`/members/${id}`, { method: 'PATCH', json: { role } satisfies S.RoleBody });
}

/** An admin removes a member; a member removes themselves (leaves). */
export function removeMember(api: Api, id: number): Promise<void> {
  return api.request<void>(`/members/${id}`, { method: 'DELETE' });
}

export function makeResetLink(api: Api, id: number): Promise<Static<typeof S.ResetLink>> {
  return api.request<Static<typeof S.ResetLink>>(`/members/${id}/reset-link`, { method: 'POST' });
}

export async function listInvitations(api: Api, signal?: AbortSignal): Promise<Invitation[]> {
  return (await api.request<Static<typeof S.InvitationList>>('/invitations', { signal })).invitations;
}

export function invite(api: Api, email: string, role: Role): Promise<CreatedInvitation> {
  return api.request<CreatedInvitation>('/invitations', { method: 'POST', json: { email, role } satisfies S.InviteBody });
}

export function withdrawInvitation(api: Api, id: number): Promise<void> {
  return api.request<void>(`/invitations/${id}`, { method: 'DELETE' });
}

export function getWorkspace(api: Api, signal?: AbortSignal): Promise<WorkspaceSettings> {
  return api.request<WorkspaceSettings>('/workspace', { signal });
}

export function updateWorkspace(api: Api, changes: WorkspaceChanges): Promise<WorkspaceSettings> {
  return api.request<WorkspaceSettings>('/workspace', { method: 'PATCH', json: changes });
}

/** The audit query as URL parameters: only the filters that are set. */
export function auditParams(query: AuditQuery, cursor: string | null = null): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (typeof value === 'string' && value !== '') params.set(name, value);
  if (cursor !== null) params.set('cursor', cursor);
  return params;
}

export function listAudit(api: Api, query: AuditQuery, cursor: string | null, signal?: AbortSignal): Promise<AuditList> {
  const search = auditParams(query, cursor).toString();
  return api.request<AuditList>(`/audit${search === '' ? '' : `?${search}`}`, { signal });
}

/** The CSV download of the same entries (the browser sends the session cookie with the link). */
export function auditExportHref(query: AuditQuery): string {
  const search = auditParams(query).toString();
  return `/audit/export${search === '' ? '' : `?${search}`}`;
}
