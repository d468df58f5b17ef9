import { linkHref } from '../links/link-key.ts';
import { formatCount } from '../shared/format.ts';
import type { ImportReport, ImportRow } from './api.ts';

const STATUS_LABELS: Readonly<Record<ImportRow['status'], string>> = { created: 'Created', existing: 'Already there', failed: 'Failed' };

/**
 * The summary of an import and its report row by row (row numbers are the file's lines, the header being 1). Every
 * row went to `domain` (a host; null: the default domain), which each link's page is told.
 */
export function ImportResults({ report, domain }: { report: ImportReport; domain: string | null }) {
  return (
    <section class="panel" aria-labelledby="import-results-heading">
      <h2 id="import-results-heading" tabIndex={-1}>
        Import report
      </h2>
      <dl class="summary">
        <div>
          <dt>Format</dt>
          <dd>{report.format}</dd>
        </div>
        <div>
          <dt>Rows</dt>
          <dd>{formatCount(report.rows)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatCount(report.created)}</dd>
        </div>
        <div>
          <dt>Already there</dt>
          <dd>{formatCount(report.existing)}</dd>
        </div>
        <div class={report.failed > 0 ? 'summary-failed' : undefined}>
          <dt>Failed</dt>
          <dd>{formatCount(report.failed)}</dd>
        </div>
      </dl>
      {report.results.length > 0 && (
        <div class="table-scroll">
          <table class="report-table">
            <caption class="visually-hidden">Result of each row</caption>
            <thead>
              <tr>
                <th scope="col" class="numeric">
                  Row
                </th>
                <th scope="col">Status</th>
                <th scope="col">Short URL or error</th>
              </tr>
            </thead>
            <tbody>
              {report.results.map((r) => (
                <tr key={r.row} class={r.status === 'failed' ? 'row-failed' : undefined}>
                  <th scope="row" class="numeric">
                    {r.row}
                  </th>
                  <td>
                    <span class={`badge badge-${r.status}`}>{STATUS_LABELS[r.status]}</span>
                  </td>
                  <td class="break">
                    {r.error !== undefined ? (
                      <>
                        <code>{r.error.code}</code> {r.error.message}
                      </>
                    ) : r.code !== undefined ? (
                      <a href={linkHref({ code: r.code, domain })}>{r.shortUrl ?? r.code}</a>
                    ) : (
                      (r.shortUrl ?? '')
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
