import type { AliasState } from './use-availability.ts';
import { ALIAS_SHAPE } from './limits.ts';

interface ShortLinkPreviewProps {
  id: string;
  host: string;
  alias: string;
  availability: AliasState;
}

/** The short link as it will be, and whether the alias typed is free (said when the answer comes: a polite live region). */
export function ShortLinkPreview({ id, host, alias, availability }: ShortLinkPreviewProps) {
  const typed = alias.trim();
  return (
    <div class="short-preview" id={id}>
      <span class="short-preview-label">Short link: </span>
      <span class="short-preview-url">
        {host}/{typed === '' ? <em>a random code</em> : typed}
      </span>{' '}
      {/* Only the answer is said as it changes, not every letter of the link. */}
      <span aria-live="polite">{typed !== '' && <AvailabilityNote alias={typed} state={availability} />}</span>
    </div>
  );
}

function AvailabilityNote({ alias, state }: { alias: string; state: AliasState }) {
  if (!ALIAS_SHAPE.test(alias)) return <span class="availability availability-no">not a possible alias (see below)</span>;
  switch (state.status) {
    case 'checking':
      return <span class="availability">checking…</span>;
    case 'unknown':
      return <span class="availability">could not check it now</span>;
    case 'done':
      return state.answer.available ? (
        <span class="availability availability-yes">✓ available</span>
      ) : (
        <span class="availability availability-no">
          ✗ {state.answer.reason?.code === 'ALIAS_RESERVED' ? 'kept for the service’s own pages' : 'already taken'}
        </span>
      );
    default:
      return null;
  }
}
