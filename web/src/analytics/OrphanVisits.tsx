import type { WorkspaceStats } from './api.ts';
import { formatCount, plural } from '../shared/format.ts';

/** Requests for short URLs the workspace does not have (mistyped, deleted, guessed), and the most requested of them. */
export function OrphanVisits({ orphans }: { orphans: WorkspaceStats['orphans'] }) {
  return (
    <>
      <p>
        <strong class="orphan-count">{plural(orphans.visits, 'visit', 'visits')}</strong> to short URLs that do not exist on the workspace’s
        domains.
      </p>
      {orphans.top.length > 0 && (
        <div class="table-scroll">
          <table class="top-table" aria-labelledby="orphans-heading">
            <thead>
              <tr>
                <th scope="col">Missing path</th>
                <th scope="col" class="numeric">
                  Visits
                </th>
              </tr>
            </thead>
            <tbody>
              {orphans.top.map((orphan) => (
                <tr
                  key={orphan.other === true ? '\0other' : `${orphan.domain}/${orphan.path}`}
                  class={orphan.other === true ? 'row-other' : undefined}
                >
                  <th scope="row">
                    {orphan.other === true ? (
                      'Other paths'
                    ) : (
                      <code class="break">
                        {orphan.domain}/{orphan.path}
                      </code>
                    )}
                  </th>
                  <td class="numeric">{formatCount(orphan.visits)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
