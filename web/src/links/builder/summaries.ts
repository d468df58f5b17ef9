// One line for each closed section of the form: what is set in it ("Password set · limit 100 clicks").
import type { LinkFormValues } from './values.ts';
import { STATUS_LABELS } from '../options/values.ts';
import type { SectionId } from './fields.ts';

const count = new Intl.NumberFormat('en-US');

function when(value: string, format: (date: Date) => string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : format(date);
}

/** `format`: how a date is written (the page passes the reader's locale; tests a fixed one). */
export function sectionSummary(section: SectionId, values: LinkFormValues, format: (date: Date) => string): string {
  const { options: o } = values;
  const parts: string[] = [];
  switch (section) {
    case 'schedule':
      if (values.startsAt !== '') parts.push(`starts ${when(values.startsAt, format)}`);
      parts.push(values.expiresAt === '' ? 'never expires' : `expires ${when(values.expiresAt, format)}`);
      break;
    case 'protection':
      if (o.password !== '') parts.push(o.hasPassword ? 'new password' : 'password set');
      else if (o.hasPassword && !o.removePassword) parts.push('password kept');
      else if (o.hasPassword) parts.push('password removed');
      if (o.clickLimit.trim() !== '') {
        const limit = Number(o.clickLimit.trim());
        parts.push(Number.isInteger(limit) ? `limit ${count.format(limit)} click${limit === 1 ? '' : 's'}` : 'click limit');
      }
      if (o.expiredUrl.trim() !== '') parts.push('own page after the end');
      if (parts.length === 0) parts.push('no password, no click limit');
      break;
    case 'targeting':
      if (o.rules.length > 0) parts.push(`${o.rules.length} rule${o.rules.length === 1 ? '' : 's'}`);
      if (o.variants.length > 0) parts.push(`A/B split ${o.variants.map((v) => v.weight.trim() || '?').join('/')}`);
      if (parts.length === 0) parts.push('everyone goes to the target');
      break;
    case 'preview':
      if (o.previewTitle.trim() !== '') parts.push(`“${o.previewTitle.trim()}”`);
      if (o.previewDescription.trim() !== '') parts.push('description');
      if (o.previewImage.trim() !== '') parts.push('image');
      if (parts.length === 0) parts.push('the target page’s own');
      break;
    case 'apps':
      if (o.appIos.trim() !== '') parts.push('iOS');
      if (o.appAndroid.trim() !== '') parts.push('Android');
      // "iOS" keeps its small i.
      return parts.length === 0 ? 'None' : parts.join(' · ');
    case 'redirect':
      if (o.redirectStatus !== '')
        parts.push(STATUS_LABELS[Number(o.redirectStatus) as keyof typeof STATUS_LABELS]?.split(':')[0] ?? o.redirectStatus);
      if (o.forwardQuery === 'true') parts.push('query forwarded');
      if (o.forwardQuery === 'false') parts.push('query not forwarded');
      if (parts.length === 0) parts.push('the deployment’s defaults');
      break;
  }
  const line = parts.join(' · ');
  return line.charAt(0).toUpperCase() + line.slice(1);
}

/** Whether anything is set in the section (its summary is then shown as a change). */
const USED: Readonly<Record<SectionId, (values: LinkFormValues) => boolean>> = {
  schedule: (v) => v.startsAt !== '' || v.expiresAt !== '',
  protection: ({ options: o }) => o.password !== '' || o.hasPassword || o.clickLimit.trim() !== '' || o.expiredUrl.trim() !== '',
  targeting: ({ options: o }) => o.rules.length > 0 || o.variants.length > 0,
  preview: ({ options: o }) => o.previewTitle.trim() !== '' || o.previewDescription.trim() !== '' || o.previewImage.trim() !== '',
  apps: ({ options: o }) => o.appIos.trim() !== '' || o.appAndroid.trim() !== '',
  redirect: ({ options: o }) => o.redirectStatus !== '' || o.forwardQuery !== '',
};

export function sectionUsed(section: SectionId, values: LinkFormValues): boolean {
  return USED[section](values);
}
