import type { LinkState } from './api.ts';

const LABELS: Record<LinkState, string> = { active: 'Active', expired: 'Expired', disabled: 'Disabled' };

export function StateBadge({ state }: { state: LinkState }) {
  return <span class={`badge badge-${state}`}>{LABELS[state]}</span>;
}
