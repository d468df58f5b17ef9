import { useState } from 'preact/hooks';
import { permissions, useApp } from '../../auth/context.ts';
import { ErrorMessage } from '../../shared/Field.tsx';
import { Page } from '../../shared/Page.tsx';
import { useAction } from '../../shared/use-action.ts';
import { useLoad } from '../../shared/use-load.ts';
import { listInvitations, listMembers, makeResetLink, type CreatedInvitation, type Member } from '../api.ts';
import { HandOverLink } from './HandOverLink.tsx';
import { InvitationTable } from './InvitationTable.tsx';
import { InviteForm } from './InviteForm.tsx';
import { RemoveDialog, RoleDialog } from './MemberDialogs.tsx';
import { MemberTable, type MemberAction } from './MemberTable.tsx';

interface ResetLink {
  member: Member;
  url: string;
  expiresAt: string;
}

/**
 * The workspace's people: its members (everyone sees them; admins change roles and remove), its open invitations and
 * the form to invite (admins), and leaving it (yourself).
 */
export function MembersPage() {
  const { api, session, options } = useApp();
  const canManage = permissions(session).canManageMembers;
  const [version, setVersion] = useState(0);
  const members = useLoad((signal) => listMembers(api, signal), `members ${version}`);
  const invitations = useLoad((signal) => (canManage ? listInvitations(api, signal) : Promise.resolve([])), `invitations ${version}`);
  const reload = () => setVersion((n) => n + 1);

  const [invited, setInvited] = useState<CreatedInvitation | null>(null);
  const [resetLink, setResetLink] = useState<ResetLink | null>(null);
  const [dialog, setDialog] = useState<{ action: 'role' | 'remove' | 'leave'; member: Member } | null>(null);
  const links = useAction<string>();

  const onAction = (action: MemberAction, member: Member) => {
    if (action !== 'reset-link') {
      setDialog({ action, member });
      return;
    }
    links.run(String(member.id), async () => {
      const made = await makeResetLink(api, member.id);
      setResetLink({ member, ...made });
    });
  };
  const closeDialog = () => setDialog(null);

  return (
    <Page title="Members">
      <div class={canManage ? 'keys-layout' : undefined}>
        {canManage && (
          <div>
            {invited?.url !== undefined && (
              <HandOverLink
                id="invitation-link"
                title={`Invitation link for ${invited.email}`}
                url={invited.url}
                expiresAt={invited.expiresAt}
                onDone={() => setInvited(null)}
              >
                <p>
                  This service sends no email, so the invitation to join {session.workspace.name} as {invited.role} was not sent.
                </p>
              </HandOverLink>
            )}
            <InviteForm
              onInvited={(created) => {
                setInvited(created);
                reload();
              }}
            />
          </div>
        )}
        <div>
          {resetLink !== null && (
            <HandOverLink
              id="reset-link"
              title={`Password reset link for ${resetLink.member.name}`}
              url={resetLink.url}
              expiresAt={resetLink.expiresAt}
              onDone={() => setResetLink(null)}
            >
              <p>With it, {resetLink.member.name} chooses a new password; their sessions are closed.</p>
            </HandOverLink>
          )}
          <section class="panel" aria-labelledby="members-heading">
            <h2 id="members-heading">Members of {session.workspace.name}</h2>
            {links.error !== null && <ErrorMessage>The reset link could not be made: {links.error}</ErrorMessage>}
            {members.error !== null ? (
              <ErrorMessage onRetry={members.retry}>The members could not be loaded: {members.error}</ErrorMessage>
            ) : members.data === null ? (
              <p class="loading">Loading members…</p>
            ) : (
              <MemberTable
                members={members.data}
                canManage={canManage}
                mail={options.mail}
                busyId={links.busy === null ? null : Number(links.busy)}
                onAction={onAction}
              />
            )}
          </section>
          {canManage && (
            <section class="panel" aria-labelledby="invitations-heading">
              <h2 id="invitations-heading">Open invitations</h2>
              {invitations.error !== null ? (
                <ErrorMessage onRetry={invitations.retry}>The invitations could not be loaded: {invitations.error}</ErrorMessage>
              ) : invitations.data === null ? (
                <p class="loading">Loading invitations…</p>
              ) : (
                <InvitationTable invitations={invitations.data} onWithdrawn={reload} />
              )}
            </section>
          )}
        </div>
      </div>
      <RoleDialog member={dialog?.action === 'role' ? dialog.member : null} onClose={closeDialog} onChanged={reload} />
      <RemoveDialog member={dialog !== null && dialog.action !== 'role' ? dialog.member : null} onClose={closeDialog} onChanged={reload} />
    </Page>
  );
}
