// The values of a link's options that the form offers as choices, with their labels: the server's lists
// (core/link-options.ts), tied to them by type (shared/lists.ts).
import type { DEVICE_CONDITIONS as SERVER_DEVICES, DeviceCondition, RedirectStatus } from '../../../../src/core/link-options.ts';
import { listOf } from '../../shared/lists.ts';

/** What a rule's condition may name of the visitor's device, its OS first. */
export const DEVICES = ['ios', 'android', 'mobile', 'tablet', 'desktop'] as const satisfies typeof SERVER_DEVICES;

export const DEVICE_LABELS: Readonly<Record<DeviceCondition, string>> = {
  ios: 'iOS',
  android: 'Android',
  mobile: 'Phones',
  tablet: 'Tablets',
  desktop: 'Desktops',
};

/** The redirect statuses, the temporary ones (every click counted) first. */
export const STATUSES = listOf<RedirectStatus>()([302, 307, 301, 308]);

export const STATUS_LABELS: Readonly<Record<RedirectStatus, string>> = {
  302: '302 Found: temporary, every click counted',
  307: '307 Temporary Redirect: keeps the method',
  301: '301 Moved Permanently: browsers keep it, later clicks not counted',
  308: '308 Permanent Redirect: browsers keep it, later clicks not counted',
};
