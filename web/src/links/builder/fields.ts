// Where a field of a link lives on the form: the id of its control and the section that holds it.
// Fields are named as the API names them (`url`, `options.clickLimit`, `options.targets[1].url`).
import { optionsControlId } from '../options/control-ids.ts';

/** The form's disclosures, in the order they are shown. */
export const SECTIONS = ['schedule', 'protection', 'targeting', 'preview', 'apps', 'redirect'] as const;
export type SectionId = (typeof SECTIONS)[number];

export const SECTION_TITLES: Readonly<Record<SectionId, string>> = {
  schedule: 'Expiry and schedule',
  protection: 'Protection',
  targeting: 'Targeting',
  preview: 'Social preview',
  apps: 'App links',
  redirect: 'Redirect',
};

/** The id of the control a field's error stands next to (and that takes the focus for it). */
export function controlOf(prefix: string, field: string): string {
  return field.startsWith('options') ? optionsControlId(prefix, field) : `${prefix}-${field}`;
}

/** The section a control is in; null: one of the link's own fields, always shown. */
export function sectionOf(prefix: string, controlId: string): SectionId | null {
  const part = controlId.startsWith(prefix) ? controlId.slice(prefix.length + 1) : controlId;
  if (part === 'expiresAt' || part === 'startsAt') return 'schedule';
  if (part === 'opt-password' || part === 'opt-limit' || part === 'opt-expired') return 'protection';
  if (part.startsWith('opt-targets-') || part.startsWith('opt-split-')) return 'targeting';
  if (part.startsWith('opt-preview-')) return 'preview';
  if (part.startsWith('opt-app-')) return 'apps';
  if (part === 'opt-status' || part === 'opt-forward') return 'redirect';
  return null;
}
