import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { errorMessage } from '../api/errors.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { verifyDomain, type Domain } from './api.ts';

type Verification = NonNullable<Domain['verification']>;

const STATUS_TEXT: Record<Verification['status'], { badge: string; hint: string }> = {
  pending: { badge: 'Pending', hint: 'Not served until its DNS record is found.' },
  verified: { badge: 'Verified', hint: 'Its DNS record was found; it is checked again from time to time.' },
  failing: { badge: 'Failing', hint: 'Its DNS record was not found at the last checks: still served for now, then no longer.' },
};

interface DomainVerificationProps {
  domain: Domain;
  verification: Verification;
  /** After a check that changed the domain: the list is read again. */
  onChecked: () => void;
}

/** Where a domain stands with its DNS record: its status, the TXT record to publish, and a check on demand. */
export function DomainVerification({ domain, verification, onChecked }: DomainVerificationProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const { status, record } = verification;
  const problemId = `domain-verify-${domain.host}-error`;

  const check = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await verifyDomain(api, domain.host);
      announce(`${domain.host} verified`);
      onChecked();
    } catch (err) {
      setProblem(errorMessage(err));
      onChecked();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class={`domain-verification domain-${status}`}>
      <p class="domain-status">
        <span class={`badge badge-${status}`}>{STATUS_TEXT[status].badge}</span> {STATUS_TEXT[status].hint}
      </p>
      {status !== 'verified' && (
        <>
          <p>Prove the workspace controls this host: publish this DNS record, then check.</p>
          <dl class="details domain-record">
            <div>
              <dt>Type</dt>
              <dd>{record.type}</dd>
            </div>
            <div>
              <dt>Name</dt>
              <dd class="break">
                <code>{record.name}</code>
              </dd>
            </div>
            <div>
              <dt>Value</dt>
              <dd class="break">
                <code>{record.value}</code>
              </dd>
            </div>
          </dl>
        </>
      )}
      <button
        type="button"
        class="button-small"
        onClick={() => void check()}
        disabled={busy}
        aria-describedby={problem === null ? undefined : problemId}
      >
        {busy ? 'Checking…' : 'Check now'}
        <span class="visually-hidden"> {domain.host}</span>
      </button>
      {problem !== null && (
        <p id={problemId} class="field-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
