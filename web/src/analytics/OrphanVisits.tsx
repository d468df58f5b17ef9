import { plural } from '../shared/format.ts';
import type { OrphanPath, WorkspaceStats } from './api.ts';
import { CountsTable, type CountColumn } from './CountsTable.tsx';

const VISITS: CountColumn<OrphanPath> = { label: 'Visits', of: (orphan) => orphan.visits };

/** Requests for short URLs the workspace does not have (mistyped, deleted, guessed), and the most requested of them. */
export function OrphanVisits({ orphans }: { orphans: WorkspaceStats['orphans'] }) {
  return (
    <>
      <p>
        <strong class="orphan-count">{plural(orphans.visits, 'visit', 'visits')}</strong> to short URLs that do not exist on the workspace’s
        domains.
      </p>
      {orphans.top.length > 0 && (
        <CountsTable<OrphanPath>
          class="top-table"
          labelledBy="orphans-heading"
          rows={orphans.top}
          head="Missing path"
          columns={[VISITS]}
          keyOf={(orphan) => (orphan.other === true ? '\0other' : `${orphan.domain}/${orphan.path}`)}
          rowClass={(orphan) => (orphan.other === true ? 'row-other' : undefined)}
          label={(orphan) =>
            orphan.other === true ? (
              'Other paths'
            ) : (
              <code class="break">
                {orphan.domain}/{orphan.path}
              </code>
            )
          }
        />
      )}
    </>
  );
}
