// A link's options (README: Link options) as the create and edit forms hold them: text as typed,
// turned into the API's shape when sent. The API checks every rule; an error it names by field
// (`options.targets[1].when.country`) is shown on that field's control (control-ids.ts).

import { fromDateTimeLocal, toDateTimeLocal } from '../../shared/format.ts';
import type { LinkOptions, TargetCondition } from '../api.ts';

export interface RuleDraft {
  devices: string[];
  /** Comma-separated, as typed. */
  countries: string;
  languages: string;
  queryName: string;
  queryValue: string;
  /** `<input type=datetime-local>` values: local wall time. */
  from: string;
  until: string;
  url: string;
}

export interface VariantDraft {
  url: string;
  weight: string;
}

export interface OptionsDraft {
  redirectStatus: string;
  /** '' the deployment's default, 'true' or 'false'. */
  forwardQuery: string;
  rules: RuleDraft[];
  variants: VariantDraft[];
  previewTitle: string;
  previewDescription: string;
  previewImage: string;
  appIos: string;
  appAndroid: string;
  /** A new password, as typed; '' keeps the link's own, if it has one. */
  password: string;
  /** The link has a password (the API never shows it). */
  hasPassword: boolean;
  removePassword: boolean;
  /** As typed; '' for none. */
  clickLimit: string;
  /** Where visitors go once the link has expired or its click limit is used up; '' for the domain's fallback. */
  expiredUrl: string;
}

export const NO_OPTIONS: OptionsDraft = {
  redirectStatus: '',
  forwardQuery: '',
  rules: [],
  variants: [],
  previewTitle: '',
  previewDescription: '',
  previewImage: '',
  appIos: '',
  appAndroid: '',
  password: '',
  hasPassword: false,
  removePassword: false,
  clickLimit: '',
  expiredUrl: '',
};

export function emptyRule(): RuleDraft {
  return { devices: [], countries: '', languages: '', queryName: '', queryValue: '', from: '', until: '', url: '' };
}

export function draftOf(options: LinkOptions | null): OptionsDraft {
  if (options === null) return NO_OPTIONS;
  return {
    redirectStatus: options.redirectStatus === undefined || options.redirectStatus === null ? '' : String(options.redirectStatus),
    forwardQuery: options.forwardQuery === undefined || options.forwardQuery === null ? '' : String(options.forwardQuery),
    rules: (options.targets ?? []).map(({ when, url }) => ({
      devices: [...(when.device ?? [])],
      countries: (when.country ?? []).join(', '),
      languages: (when.language ?? []).join(', '),
      queryName: when.query?.name ?? '',
      queryValue: when.query?.value ?? '',
      from: toDateTimeLocal(when.from ?? null),
      until: toDateTimeLocal(when.until ?? null),
      url,
    })),
    variants: (options.split ?? []).map(({ url, weight }) => ({ url, weight: String(weight) })),
    previewTitle: options.preview?.title ?? '',
    previewDescription: options.preview?.description ?? '',
    previewImage: options.preview?.image ?? '',
    appIos: options.deepLink?.ios ?? '',
    appAndroid: options.deepLink?.android ?? '',
    password: '',
    hasPassword: options.password === true,
    removePassword: false,
    clickLimit: options.clickLimit === undefined || options.clickLimit === null ? '' : String(options.clickLimit),
    expiredUrl: options.expiredUrl ?? '',
  };
}

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The options to send; null when the draft asks for nothing (a plain link). A number that is not one is sent as typed, for the API to refuse. */
export function optionsOf(draft: OptionsDraft): LinkOptions | null {
  const options: LinkOptions = {};
  if (draft.redirectStatus !== '') options.redirectStatus = Number(draft.redirectStatus);
  if (draft.forwardQuery !== '') options.forwardQuery = draft.forwardQuery === 'true';
  if (draft.rules.length > 0) {
    options.targets = draft.rules.map((rule) => {
      const when: TargetCondition = {};
      if (rule.devices.length > 0) when.device = [...rule.devices];
      if (list(rule.countries).length > 0) when.country = list(rule.countries);
      if (list(rule.languages).length > 0) when.language = list(rule.languages);
      if (rule.queryName.trim() !== '')
        when.query = rule.queryValue === '' ? { name: rule.queryName.trim() } : { name: rule.queryName.trim(), value: rule.queryValue };
      const from = fromDateTimeLocal(rule.from);
      if (from !== null) when.from = from;
      const until = fromDateTimeLocal(rule.until);
      if (until !== null) when.until = until;
      return { when, url: rule.url.trim() };
    });
  }
  if (draft.variants.length > 0) {
    options.split = draft.variants.map(({ url, weight }) => ({
      url: url.trim(),
      weight: /^\d+$/.test(weight.trim()) ? Number(weight) : (weight as unknown as number),
    }));
  }
  const preview: NonNullable<LinkOptions['preview']> = {};
  if (draft.previewTitle.trim() !== '') preview.title = draft.previewTitle.trim();
  if (draft.previewDescription.trim() !== '') preview.description = draft.previewDescription.trim();
  if (draft.previewImage.trim() !== '') preview.image = draft.previewImage.trim();
  if (Object.keys(preview).length > 0) options.preview = preview;
  const deepLink: NonNullable<LinkOptions['deepLink']> = {};
  if (draft.appIos.trim() !== '') deepLink.ios = draft.appIos.trim();
  if (draft.appAndroid.trim() !== '') deepLink.android = draft.appAndroid.trim();
  if (Object.keys(deepLink).length > 0) options.deepLink = deepLink;
  if (draft.clickLimit.trim() !== '')
    options.clickLimit = /^\d+$/.test(draft.clickLimit.trim()) ? Number(draft.clickLimit.trim()) : (draft.clickLimit as unknown as number);
  if (draft.expiredUrl.trim() !== '') options.expiredUrl = draft.expiredUrl.trim();
  if (draft.password !== '') options.password = draft.password;
  else if (draft.hasPassword && !draft.removePassword) options.password = true;
  return Object.keys(options).length === 0 ? null : options;
}
