import { useRef, useState } from 'preact/hooks';
import { permissions, useApp } from '../auth/context.ts';
import { Page } from '../shared/Page.tsx';
import { ImportForm, type Imported } from './ImportForm.tsx';
import { ImportResults } from './ImportResults.tsx';

/** Imports a CSV file of links and shows its per-row report. */
export function ImportPage() {
  const { session } = useApp();
  const [report, setReport] = useState<Imported | null>(null);
  const results = useRef<HTMLDivElement>(null);

  if (!permissions(session).canCreate) {
    return (
      <Page title="Import links">
        <p class="message message-info">Your key has the viewer role: it can read links but not import them.</p>
      </Page>
    );
  }

  const onImported = (imported: Imported) => {
    setReport(imported);
    requestAnimationFrame(() => results.current?.querySelector<HTMLElement>('h2')?.focus());
  };

  return (
    <Page title="Import links">
      <div class="narrow">
        <p>
          Create links from a CSV file exported by another shortener or written by hand. A file can hold up to 5 MiB and 5,000 rows;
          importing the same file again creates nothing new.
        </p>
        <ImportForm onSend={() => setReport(null)} onImported={onImported} />
      </div>
      <div ref={results}>{report !== null && <ImportResults report={report.answer} domain={report.domain} />}</div>
    </Page>
  );
}
