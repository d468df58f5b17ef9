// A link's state (active, expired, disabled) as the list's filter and a link's badge show it.
import type { LINK_STATES as SERVER_LINK_STATES, LinkState } from '../../../src/core/link.ts';

export const LINK_STATES = ['active', 'expired', 'disabled'] as const satisfies typeof SERVER_LINK_STATES;

export const STATE_LABELS: Readonly<Record<LinkState, string>> = { active: 'Active', expired: 'Expired', disabled: 'Disabled' };

export function isLinkState(value: string): value is LinkState {
  return (LINK_STATES as readonly string[]).includes(value);
}
