import { useState } from 'preact/hooks';
import { plural } from '../shared/format.ts';
import { useAnnounce } from '../shared/Status.tsx';
import type { Domain } from './api.ts';
import { DomainCard } from './DomainCard.tsx';
import { RemoveDomainDialog } from './RemoveDomainDialog.tsx';

interface DomainListProps {
  domains: readonly Domain[];
  /** After a change: the list is read again (link counts move with a removal). */
  onChanged: () => void;
}

/** The workspace's domains, the default first; one at a time is edited, and each of its own can be removed. */
export function DomainList({ domains, onChanged }: DomainListProps) {
  const announce = useAnnounce();
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Domain | null>(null);

  const onRemoved = (host: string, movedTo: string | null) => {
    const links = removing !== null && removing.links > 0 ? plural(removing.links, 'link', 'links') : 'links';
    const moved = movedTo === null ? '' : `; its ${links} moved to ${movedTo}`;
    announce(`Domain ${host} removed${moved}`);
    setRemoving(null);
    onChanged();
  };

  return (
    <>
      <ul class="domain-list">
        {domains.map((domain) => (
          <DomainCard
            key={domain.host}
            domain={domain}
            editing={editing === domain.host}
            onEdit={() => setEditing(domain.host)}
            onEditDone={(updated) => {
              setEditing(null);
              if (updated !== null) onChanged();
            }}
            onRemove={() => setRemoving(domain)}
            onChecked={onChanged}
          />
        ))}
      </ul>
      {domains.every((d) => d.isDefault) && (
        <p class="hint domain-none">No domain of the workspace’s own yet: add one under “Add a domain”.</p>
      )}
      <RemoveDomainDialog removing={removing} domains={domains} onRemoved={onRemoved} onCancel={() => setRemoving(null)} />
    </>
  );
}
