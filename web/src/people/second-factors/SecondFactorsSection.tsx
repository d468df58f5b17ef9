import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { ErrorMessage } from '../../shared/Field.tsx';
import { useLoad } from '../../shared/use-load.ts';
import { getSecondFactors } from './api.ts';
import { Passkeys } from './Passkeys.tsx';
import { RecoveryCodes } from './RecoveryCodes.tsx';
import { Totp } from './Totp.tsx';
import './second-factors.css';

/**
 * The profile's second factors (GET /auth/second-factors): passkeys, the authenticator app, recovery codes. A change
 * reads them again, and the session too: adding a factor meets a workspace's requirement in this session.
 */
export function SecondFactorsSection() {
  const { api, session, signedIn } = useApp();
  const [version, setVersion] = useState(0);
  /** Recovery codes just made: shown once, until the page is left. */
  const [fresh, setFresh] = useState<string[] | null>(null);
  const factors = useLoad((signal) => getSecondFactors(api, signal), String(version));

  // Reached by the banner's link (/app/profile#second-factors): the section is far down the page.
  const loaded = factors.data !== null;
  useEffect(() => {
    if (loaded && location.hash === '#second-factors') document.getElementById('second-factors-heading')?.focus();
  }, [loaded]);

  const changed = async (codes: string[] | null = null) => {
    if (codes !== null) setFresh(codes);
    setVersion((n) => n + 1);
    if (session.pending !== null || codes !== null) signedIn(await api.getSession());
  };

  return (
    <section id="second-factors" class="second-factors" aria-labelledby="second-factors-heading">
      <h2 id="second-factors-heading" tabIndex={-1}>
        Second factors
      </h2>
      {factors.data?.required === true && (
        <p class="message message-info">
          A workspace of yours requires a second factor: keep at least one passkey or an authenticator app.
        </p>
      )}
      {factors.error !== null ? (
        <ErrorMessage onRetry={factors.retry}>Your second factors could not be loaded: {factors.error}</ErrorMessage>
      ) : factors.data === null ? (
        <p class="loading">Loading second factors…</p>
      ) : (
        <div class="second-factors-grid">
          <Passkeys factors={factors.data} onChanged={changed} />
          <Totp factors={factors.data} onChanged={changed} />
          <RecoveryCodes factors={factors.data} fresh={fresh} onChanged={changed} />
        </div>
      )}
    </section>
  );
}
