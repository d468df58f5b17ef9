import { useApp } from '../auth/context.ts';
import { filtersSearch, NO_FILTERS } from '../links/list-filters.ts';
import { plural } from '../shared/format.ts';
import { useAnnounce } from '../shared/Status.tsx';
import { useEditFocus } from '../shared/use-edit-focus.ts';
import { updateDomain, type Domain } from './api.ts';
import { DomainCheck } from './DomainCheck.tsx';
import { DomainForm, FALLBACK_TEXT } from './DomainForm.tsx';
import { DomainVerification } from './DomainVerification.tsx';
import { domainFormValues, fallbackChanges, type DomainFormValues } from './domains.ts';

interface DomainCardProps {
  domain: Domain;
  editing: boolean;
  onEdit: () => void;
  onEditDone: (updated: Domain | null) => void;
  onRemove: () => void;
  /** After a DNS check: the list is read again. */
  onChecked: () => void;
}

/** One domain: its host, its links, its fallbacks; a domain of the workspace's own can be edited (PATCH) or removed. */
export function DomainCard({ domain, editing, onEdit, onEditDone, onRemove, onChecked }: DomainCardProps) {
  const { api } = useApp();
  const announce = useAnnounce();
  const { card, editButton } = useEditFocus<HTMLLIElement>(editing);
  const headingId = `domain-${domain.host}`;

  const save = async (values: DomainFormValues) => {
    const changes = fallbackChanges(domain, values);
    if (Object.keys(changes).length === 0) {
      announce('Nothing was changed');
      onEditDone(null);
      return;
    }
    const updated = await updateDomain(api, domain.host, changes);
    announce(`Fallbacks of ${domain.host} saved`);
    onEditDone(updated);
  };

  return (
    <li class="domain" ref={card} aria-labelledby={headingId}>
      <div class="domain-head">
        <h3 id={headingId} class="domain-host">
          {domain.host}
        </h3>
        {domain.isDefault && <span class="badge badge-default">Default</span>}
        <a class="domain-links" href={`/app/links${filtersSearch({ ...NO_FILTERS, domain: domain.host })}`}>
          {plural(domain.links, 'link', 'links')}
          <span class="visually-hidden"> on {domain.host}</span>
        </a>
      </div>
      {editing ? (
        <DomainForm
          mode="edit"
          initial={domainFormValues(domain)}
          submitLabel="Save fallbacks"
          busyLabel="Saving…"
          onSubmit={save}
          onCancel={() => onEditDone(null)}
        />
      ) : (
        <>
          <dl class="details domain-fallbacks">
            {FALLBACK_TEXT.map(({ field, name, none }) => {
              const url = domain[field];
              return (
                <div key={field}>
                  <dt>{name}</dt>
                  <dd class="break">{url === null ? <span class="muted">{none}</span> : url}</dd>
                </div>
              );
            })}
          </dl>
          {domain.verification !== null && <DomainVerification domain={domain} verification={domain.verification} onChecked={onChecked} />}
          <DomainCheck host={domain.host} />
          {domain.isDefault ? (
            <p class="hint">The service’s own domain, from its configuration (BASE_URL): links go here unless another domain is chosen.</p>
          ) : (
            <div class="button-row">
              <button type="button" class="button-small" ref={editButton} onClick={onEdit}>
                Edit fallbacks<span class="visually-hidden"> of {domain.host}</span>
              </button>
              <button type="button" class="button-small button-danger" onClick={onRemove}>
                Remove<span class="visually-hidden"> domain {domain.host}</span>
              </button>
            </div>
          )}
        </>
      )}
    </li>
  );
}
