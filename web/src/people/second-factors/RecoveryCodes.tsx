import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { ConfirmDialog } from '../../shared/ConfirmDialog.tsx';
import { CopyButton } from '../../shared/CopyButton.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useAction } from '../../shared/use-action.ts';
import { newRecoveryCodes, type SecondFactors } from './api.ts';

interface RecoveryCodesProps {
  factors: SecondFactors;
  /** Codes just made (with a first factor, or on demand): shown this once. */
  fresh: string[] | null;
  onChanged: (codes?: string[] | null) => Promise<void>;
}

/** Recovery codes: how many are left, new ones on demand (the old ones stop working), and new ones shown once. */
export function RecoveryCodes({ factors, fresh, onChanged }: RecoveryCodesProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [asking, setAsking] = useState(false);
  const make = useAction<'make'>();
  const hasFactor = factors.totp.enabled || factors.passkeys.length > 0;

  const confirm = () =>
    make.run('make', async () => {
      const codes = await newRecoveryCodes(api);
      setAsking(false);
      announce('New recovery codes made: save them now');
      await onChanged(codes);
    });

  return (
    <section class="panel" aria-labelledby="recovery-heading">
      <h3 id="recovery-heading">Recovery codes</h3>
      <p class="hint">For when your phone or passkey is out of reach: each code confirms one sign-in instead.</p>
      {fresh !== null && (
        <div class="message message-info recovery-fresh" role="status">
          <p>
            <strong>Save these codes now</strong> (print them, or keep them in a password manager): they are shown this once.
          </p>
          <ol id="recovery-code-list" class="recovery-codes">
            {fresh.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ol>
          <CopyButton text={fresh.join('\n')} what="the recovery codes" sourceId="recovery-code-list" />
        </div>
      )}
      {!hasFactor ? (
        <p class="muted">They come with your first passkey or authenticator app.</p>
      ) : (
        <>
          <p>
            {factors.recoveryCodes.remaining === 0
              ? 'You have no unused recovery codes left.'
              : `You have ${factors.recoveryCodes.remaining} unused recovery code${factors.recoveryCodes.remaining === 1 ? '' : 's'}.`}
          </p>
          <button type="button" onClick={() => setAsking(true)}>
            Make new codes
          </button>
        </>
      )}
      <ConfirmDialog
        open={asking}
        title="Make new recovery codes?"
        confirmLabel="Make new codes"
        busy={make.busy !== null}
        error={make.error}
        onConfirm={confirm}
        onCancel={() => {
          setAsking(false);
          make.setError(null);
        }}
      >
        <p>Your current recovery codes stop working, used or not.</p>
      </ConfirmDialog>
    </section>
  );
}
