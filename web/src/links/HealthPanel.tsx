import { CellLabel } from '../shared/CellLabel.tsx';
import { ErrorMessage } from '../shared/Field.tsx';
import { formatDateTime } from '../shared/format.ts';
import { StackTableHead } from '../shared/StackTableHead.tsx';
import { useAction } from '../shared/use-action.ts';
import { useLoad } from '../shared/use-load.ts';
import { useApp } from '../auth/context.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { getLinkHealth, setLinkProbes, statusWords, type LinkHealth } from './health-api.ts';
import type { LinkKey } from './link-key.ts';

/** The badge of a link's target: well, failing (not yet broken), broken, or not probed. */
function healthBadge(health: LinkHealth): { text: string; badge: string } {
  if (!health.probes) return { text: 'Probes off', badge: 'badge-disabled' };
  if (health.broken) return { text: 'Broken', badge: 'badge-failed' };
  if (health.failures > 0) return { text: 'Failing', badge: 'badge-expired' };
  if (health.status === null) return { text: 'Not probed yet', badge: 'badge-scheduled' };
  return { text: 'OK', badge: 'badge-active' };
}

/** The link's target health (GET /links/:code/health): its state, its last probes, and the opt-out for who may change it. */
export function HealthPanel({ linkKey, canManage }: { linkKey: LinkKey; canManage: boolean }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const loaded = useLoad((signal) => getLinkHealth(api, linkKey, signal), `${linkKey.domain ?? ''}/${linkKey.code}`);
  const saving = useAction<'probes'>();
  const health = loaded.data;

  const toggle = (probes: boolean) =>
    saving.run('probes', async () => {
      await setLinkProbes(api, linkKey, probes);
      announce(probes ? 'Target probes turned on' : 'Target probes turned off');
      loaded.retry();
    });

  return (
    <section class="panel" aria-labelledby="health-heading">
      <h2 id="health-heading">Target health</h2>
      {loaded.error !== null && <ErrorMessage onRetry={loaded.retry}>The target's health could not be loaded: {loaded.error}</ErrorMessage>}
      {health === null ? (
        loaded.error === null && <p class="loading">Loading…</p>
      ) : (
        <>
          <p>
            <span class={`badge ${healthBadge(health).badge}`}>{healthBadge(health).text}</span>{' '}
            {health.checkedAt !== null && (
              <span>
                last probe <time dateTime={health.checkedAt}>{formatDateTime(health.checkedAt)}</time>: {statusWords(health.status)}
                {health.failures > 0 && `, ${health.failures} failed in a row`}
              </span>
            )}
          </p>
          {health.brokenSince !== null && (
            <p class="hint">
              Broken since <time dateTime={health.brokenSince}>{formatDateTime(health.brokenSince)}</time>.
            </p>
          )}
          {health.history.length > 0 && (
            <div class="table-scroll">
              <table class="health-table stack-table" role="table">
                <caption class="visually-hidden">The last probes of the target, newest first</caption>
                <StackTableHead columns={['Time', 'Result', 'Took']} numeric={['Took']} />
                <tbody role="rowgroup">
                  {health.history.map((probe) => (
                    <tr role="row" key={probe.at}>
                      <th role="rowheader" scope="row">
                        <time dateTime={probe.at}>{formatDateTime(probe.at)}</time>
                      </th>
                      <td role="cell">
                        <CellLabel>Result</CellLabel>
                        <span class={`badge ${probe.ok ? 'badge-active' : 'badge-failed'}`}>{probe.ok ? 'OK' : 'Failed'}</span>{' '}
                        {statusWords(probe.status)}
                      </td>
                      <td role="cell" class="numeric">
                        <CellLabel>Took</CellLabel>
                        {probe.latencyMs} ms
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {canManage && (
            <div class="health-probes">
              {saving.error !== null && <ErrorMessage>{saving.error}</ErrorMessage>}
              <button
                type="button"
                onClick={() => toggle(!health.probes)}
                aria-disabled={saving.busy !== null}
                aria-describedby="probes-hint"
              >
                {health.probes ? 'Stop probing the target' : 'Probe the target again'}
              </button>
              <p class="hint" id="probes-hint">
                {health.probes
                  ? 'The service checks the target on a schedule; stop it for a page that should not be visited by a robot.'
                  : 'The target is not probed, and the link is never called broken.'}
              </p>
            </div>
          )}
        </>
      )}
    </section>
  );
}
