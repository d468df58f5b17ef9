import type { LinkState } from './api.ts';
import { STATE_LABELS } from './link-states.ts';

export function StateBadge({ state }: { state: LinkState }) {
  return <span class={`badge badge-${state}`}>{STATE_LABELS[state]}</span>;
}
