import { useLocation } from 'preact-iso';
import type { Session } from '../../api/client.ts';
import './second-factors.css';

/**
 * While the session lacks the second factor its workspace requires (GET /auth/session `pending`), every page but the
 * profile answers 403 SECOND_FACTOR_REQUIRED: this says why, and leads to where a factor is added.
 */
export function SecondFactorBanner({ session }: { session: Session }) {
  const { path } = useLocation();
  if (session.pending !== 'SECOND_FACTOR_REQUIRED') return null;
  return (
    <div class="message message-warn pending-banner" role="status">
      <p>
        <strong>{session.workspace.name} requires a second factor.</strong>{' '}
        {path === '/app/profile' ? (
          <a href="#second-factors">Add a passkey or an authenticator app below</a>
        ) : (
          <a href="/app/profile#second-factors">Add a passkey or an authenticator app in your profile</a>
        )}{' '}
        to use it; until then only your profile is open to you.
      </p>
    </div>
  );
}
