import { useRef, useState } from 'preact/hooks';
import { DomainSelect } from '../domains/DomainSelect.tsx';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { ImportResults } from './ImportResults.tsx';
import { Page } from '../shared/Page.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { permissions, useApp } from '../auth/context.ts';
import { errorMessage } from '../api/errors.ts';
import { formatCount } from '../shared/format.ts';
import { useDomains } from '../domains/use-domains.ts';
import { IMPORT_FORMATS, importLinks, type ImportFormat, type ImportReport } from './api.ts';

const MAX_BYTES = 5 * 1024 * 1024;

const FORMAT_LABELS: Record<ImportFormat, string> = {
  auto: 'Detect from the columns',
  generic: 'Generic (url, alias, title, tags, expiresAt)',
  bitly: 'Bitly export',
  yourls: 'YOURLS export',
  kutt: 'Kutt export',
  shlink: 'Shlink export',
};

/** Uploads a CSV file as the raw body of POST /links/import and shows its per-row report. */
export function ImportPage() {
  const { api, session } = useApp();
  const announce = useAnnounce();
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<ImportFormat>('auto');
  /** A host; '' for the default domain. */
  const [domain, setDomain] = useState('');
  const { domains } = useDomains();
  const [fileError, setFileError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<{ answer: ImportReport; domain: string | null } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const results = useRef<HTMLDivElement>(null);

  if (!permissions(session).canCreate) {
    return (
      <Page title="Import links">
        <p class="message message-info">Your key has the viewer role: it can read links but not import them.</p>
      </Page>
    );
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setFormError(null);
    if (file === null) {
      setFileError('Choose a CSV file.');
      fileInput.current?.focus();
      return;
    }
    if (file.size > MAX_BYTES) {
      setFileError('This file is over 5 MiB: split it into smaller files.');
      fileInput.current?.focus();
      return;
    }
    setFileError(null);
    setBusy(true);
    setReport(null);
    try {
      const onDomain = domain === '' ? null : domain;
      const answer = await importLinks(api, file, format, onDomain);
      setReport({ answer, domain: onDomain });
      announce(`Import done: ${answer.created} created, ${answer.existing} already there, ${answer.failed} failed`);
      requestAnimationFrame(() => results.current?.querySelector<HTMLElement>('h2')?.focus());
    } catch (caught) {
      setFormError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title="Import links">
      <div class="narrow">
        <p>
          Create links from a CSV file exported by another shortener or written by hand. A file can hold up to 5 MiB and 5,000 rows;
          importing the same file again creates nothing new.
        </p>
        <form class="form" onSubmit={(event) => void submit(event)} noValidate>
          {formError !== null && <ErrorMessage>The file was not imported: {formError}</ErrorMessage>}
          <Field id="import-file" label="CSV file" hint="At most 5 MiB and 5,000 rows, with a header row." error={fileError}>
            {(control) => (
              <input
                {...control}
                ref={fileInput}
                type="file"
                name="file"
                accept=".csv,text/csv"
                onChange={(event) => {
                  setFile(event.currentTarget.files?.[0] ?? null);
                  setFileError(null);
                }}
              />
            )}
          </Field>
          <Field id="import-format" label="Format">
            {(control) => (
              <select {...control} name="format" value={format} onChange={(event) => setFormat(event.currentTarget.value as ImportFormat)}>
                {IMPORT_FORMATS.map((f) => (
                  <option key={f} value={f}>
                    {FORMAT_LABELS[f]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {domains !== null && domains.length > 1 && (
            <Field id="import-domain" label="Short domain" hint="Every link of the file goes on it.">
              {(control) => <DomainSelect control={control} name="domain" domains={domains} value={domain} onChange={setDomain} />}
            </Field>
          )}
          <div class="button-row">
            <button type="submit" class="button-primary" aria-disabled={busy}>
              {busy ? 'Importing…' : 'Import'}
            </button>
            {file !== null && <span class="hint">{`${formatCount(Math.ceil(file.size / 1024))} KiB`}</span>}
          </div>
        </form>
      </div>
      <div ref={results}>{report !== null && <ImportResults report={report.answer} domain={report.domain} />}</div>
    </Page>
  );
}
