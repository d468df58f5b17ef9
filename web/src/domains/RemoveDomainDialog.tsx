import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../api/errors.ts';
import { useApp } from '../auth/context.ts';
import { ConfirmDialog } from '../shared/ConfirmDialog.tsx';
import { Field } from '../shared/Field.tsx';
import { plural } from '../shared/format.ts';
import { useAction } from '../shared/use-action.ts';
import { deleteDomain, type Domain } from './api.ts';
import { moveTargets } from './domains.ts';

interface RemoveDomainDialogProps {
  /** The domain to remove; null: the dialog is closed. */
  removing: Domain | null;
  domains: readonly Domain[];
  /** After DELETE /domains/:host: where its links went, if anywhere. */
  onRemoved: (host: string, movedTo: string | null) => void;
  onCancel: () => void;
}

/**
 * Removes a domain after a confirmation (DELETE /domains/:host). A domain with links goes only with them moved to
 * another domain (`?moveLinksTo=`), chosen here; the API refuses a move onto a domain that has one of their codes.
 */
export function RemoveDomainDialog({ removing, domains, onRemoved, onCancel }: RemoveDomainDialogProps) {
  const { api } = useApp();
  const targets = removing === null ? [] : moveTargets(domains, removing);
  const [target, setTarget] = useState('');
  /** Links found on it by the API although the list said none (made since it was read). */
  const [inUse, setInUse] = useState(false);
  const [targetError, setTargetError] = useState<string | null>(null);
  const { busy, error, setError, run } = useAction<'remove'>();

  // Each opening starts afresh, with the first other domain (the default one) as the links' new home.
  useEffect(() => {
    setTarget(targets[0]?.host ?? '');
    setInUse(false);
    setTargetError(null);
    setError(null);
  }, [removing?.host]);

  const moving = removing !== null && (removing.links > 0 || inUse);

  /** The API's refusals that are about the links' new home: shown on its field, which takes the focus. */
  const refused = (removed: Domain, caught: unknown) => {
    const code = caught instanceof ApiError ? caught.code : null;
    if (code === 'DOMAIN_MOVE_CONFLICT') {
      setTargetError(
        `Some of its links have a code that ${target} has already. Move them to another domain, or first delete the links that share a code on one of the two.`,
      );
    } else if (code === 'DOMAIN_IN_USE') {
      setInUse(true);
      setTargetError(`Links use ${removed.host} now: choose the domain to move them to.`);
    } else {
      setError(errorMessage(caught));
    }
    if (code === 'DOMAIN_MOVE_CONFLICT' || code === 'DOMAIN_IN_USE') {
      requestAnimationFrame(() => document.getElementById('move-links-to')?.focus());
    }
  };

  const remove = () => {
    if (removing === null) return;
    const movedTo = moving ? target : null;
    setTargetError(null);
    run(
      'remove',
      async () => {
        await deleteDomain(api, removing.host, movedTo);
        onRemoved(removing.host, movedTo);
      },
      (caught) => refused(removing, caught),
    );
  };

  return (
    <ConfirmDialog
      open={removing !== null}
      title="Remove this domain?"
      confirmLabel={moving ? 'Move links and remove' : 'Remove domain'}
      busy={busy !== null}
      error={error}
      onConfirm={remove}
      onCancel={onCancel}
    >
      {removing !== null && (
        <>
          <p>
            Short URLs on <strong>{removing.host}</strong> stop working at once: the service no longer answers for it.
          </p>
          {moving ? (
            <>
              <p>
                {removing.links === 1
                  ? '1 link uses it. It moves with its code, clicks and settings; its short URL takes the new domain’s host.'
                  : `${removing.links > 0 ? plural(removing.links, 'link uses', 'links use') : 'Links use'} it. They move with their codes, clicks and settings; their short URLs take the new domain’s host.`}
              </p>
              <Field id="move-links-to" label="Move its links to" error={targetError} live>
                {(control) => (
                  <select
                    {...control}
                    name="moveLinksTo"
                    value={target}
                    onChange={(event) => {
                      setTarget(event.currentTarget.value);
                      setTargetError(null);
                    }}
                  >
                    {targets.map((d) => (
                      <option key={d.host} value={d.host}>
                        {d.isDefault ? `${d.host} (default)` : d.host}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </>
          ) : (
            <p>No link uses it.</p>
          )}
        </>
      )}
    </ConfirmDialog>
  );
}
