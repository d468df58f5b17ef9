import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { DomainSelect } from '../domains/DomainSelect.tsx';
import { useDomains } from '../domains/use-domains.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { formatCount } from '../shared/format.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { useFormSubmit } from '../shared/use-form-submit.ts';
import { IMPORT_FORMATS, importLinks, type ImportFormat, type ImportReport } from './api.ts';

const MAX_BYTES = 5 * 1024 * 1024;

const FORMAT_LABELS: Readonly<Record<ImportFormat, string>> = {
  auto: 'Detect from the columns',
  generic: 'Generic (url, alias, title, tags, expiresAt)',
  bitly: 'Bitly export',
  yourls: 'YOURLS export',
  kutt: 'Kutt export',
  shlink: 'Shlink export',
};

/** An import's report, and the domain (a host; null: the default domain) its every row went to. */
export interface Imported {
  answer: ImportReport;
  domain: string | null;
}

interface ImportFormProps {
  /** When a file is sent: the report of the one before goes. */
  onSend: () => void;
  onImported: (imported: Imported) => void;
}

/** A CSV file, its format and the domain its links go on, sent as the raw body of POST /links/import. */
export function ImportForm({ onSend, onImported }: ImportFormProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<ImportFormat>('auto');
  /** A host; '' for the default domain. */
  const [domain, setDomain] = useState('');
  const { domains, defaultHost } = useDomains();

  const send = async () => {
    if (file === null) return;
    onSend();
    const onDomain = domain === '' ? null : domain;
    const answer = await importLinks(api, file, format, onDomain);
    onImported({ answer, domain: onDomain });
    announce(`Import done: ${answer.created} created, ${answer.existing} already there, ${answer.failed} failed`);
  };
  const { busy, errors, formError, submit, clear } = useFormSubmit<'file'>(send, {
    check: () => {
      if (file === null) return { file: 'Choose a CSV file.' };
      return file.size > MAX_BYTES ? { file: 'This file is over 5 MiB: split it into smaller files.' } : null;
    },
    // The API's errors are about the file as a whole, or its query (the format, the domain): the form's.
    placeOf: () => null,
    controlOf: () => 'import-file',
  });

  return (
    <form class="form" onSubmit={submit} noValidate>
      {formError !== null && <ErrorMessage>The file was not imported: {formError}</ErrorMessage>}
      <Field id="import-file" label="CSV file" hint="At most 5 MiB and 5,000 rows, with a header row." error={errors.file}>
        {(control) => (
          <input
            {...control}
            type="file"
            name="file"
            accept=".csv,text/csv"
            onChange={(event) => {
              setFile(event.currentTarget.files?.[0] ?? null);
              clear('file');
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
          {(control) => (
            <DomainSelect control={control} name="domain" domains={domains} defaultHost={defaultHost} value={domain} onChange={setDomain} />
          )}
        </Field>
      )}
      <div class="button-row">
        <button type="submit" class="button-primary" aria-disabled={busy}>
          {busy ? 'Importing…' : 'Import'}
        </button>
        {file !== null && <span class="hint">{`${formatCount(Math.ceil(file.size / 1024))} KiB`}</span>}
      </div>
    </form>
  );
}
