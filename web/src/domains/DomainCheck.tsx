import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { errorMessage } from '../api/errors.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { checkDomain, type DomainCheck as CheckResult } from './api.ts';

interface DomainCheckProps {
  host: string;
}

/** "Check DNS and TLS": where the domain points and its certificate, as a checklist, with the records to set when it points elsewhere. */
export function DomainCheck({ host }: DomainCheckProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<CheckResult | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const problemId = `domain-check-${host}-error`;

  const run = async () => {
    if (busy) return;
    setBusy(true);
    setProblem(null);
    try {
      const checked = await checkDomain(api, host);
      setResult(checked);
      const verdict = checked.dns.ok && checked.tls.ok ? 'all good' : 'needs attention';
      announce(`${host}, ${verdict}: ${checked.dns.summary}. ${checked.tls.summary}`);
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="domain-check">
      <button
        type="button"
        class="button-small"
        onClick={() => void run()}
        aria-disabled={busy}
        aria-describedby={problem === null ? undefined : problemId}
      >
        {busy ? 'Checking DNS and TLS…' : 'Check DNS and TLS'}
        <span class="visually-hidden"> of {host}</span>
      </button>
      {problem !== null && (
        <p id={problemId} class="field-error" role="alert">
          {problem}
        </p>
      )}
      {result !== null && <CheckList result={result} />}
    </div>
  );
}

function CheckList({ result }: { result: CheckResult }) {
  const { dns, tls } = result;
  return (
    <>
      <ul class="check-list" aria-label={`DNS and TLS of ${result.host}`}>
        <CheckItem ok={dns.ok} text={dns.summary} />
        <CheckItem ok={tls.ok} text={tls.summary} hint={tls.ok && tls.certificate?.issuer ? `Issued by ${tls.certificate.issuer}` : null} />
      </ul>
      {!dns.ok && dns.records.length > 0 && <RecordsToSet records={dns.records} />}
    </>
  );
}

function CheckItem({ ok, text, hint = null }: { ok: boolean; text: string; hint?: string | null }) {
  return (
    <li class={ok ? 'check check-ok' : 'check check-problem'}>
      <span class="check-mark" aria-hidden="true">
        {ok ? '✓' : '✗'}
      </span>
      <span>
        <span class="visually-hidden">{ok ? 'OK: ' : 'Problem: '}</span>
        {text}
        {hint !== null && <span class="hint check-hint">{hint}</span>}
      </span>
    </li>
  );
}

function RecordsToSet({ records }: { records: CheckResult['dns']['records'] }) {
  const cname = records.some((record) => record.type === 'CNAME');
  const addresses = records.some((record) => record.type !== 'CNAME');
  return (
    <div class="records-to-set">
      <p>
        {cname && addresses
          ? 'Set this CNAME record, or, at the root of a zone (which cannot have a CNAME), the A and AAAA records instead:'
          : 'Set this DNS record:'}
      </p>
      <table class="records-table">
        <caption class="visually-hidden">Records to set</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr key={`${record.type} ${record.value}`}>
              <td>{record.type}</td>
              <td>
                <code>{record.name}</code>
              </td>
              <td>
                <code>{record.value}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
