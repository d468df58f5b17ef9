import type { LinkState } from '../api/client.ts';

const LABELS: Record<LinkState, string> = { active: 'Active', expired: 'Expired', disabled: 'Disabled' };

export function StateBadge({ state }: { state: LinkState }) {
  return <span class={`badge badge-${state}`}>{LABELS[state]}</span>;
}
