// The checks the browser makes before a link is sent, with the server's limits (limits.ts): each
// problem named by the API's field, in the order of the form, in people's words. The API checks
// everything again; these only spare a round trip and say it sooner.
import type { LinkFormValues } from './values.ts';
import type { OptionsDraft } from '../options/draft.ts';
import {
  ALIAS_MAX,
  ALIAS_MIN,
  ALIAS_SHAPE,
  CLICK_LIMIT_MAX,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PREVIEW_DESCRIPTION_MAX,
  PREVIEW_TITLE_MAX,
  TAG_MAX,
  TAGS_COUNT_MAX,
  TITLE_MAX,
  URL_MAX,
} from './limits.ts';
import { normaliseUrl } from './normalise-url.ts';

export interface Problem {
  /** The API's name of the field. */
  field: string;
  message: string;
}

const count = new Intl.NumberFormat('en-US');
const APP_URL = /^[a-zA-Z][a-zA-Z0-9+.-]*:[\x21-\x7e]+$/;

export const WORDS = {
  urlMissing: 'Enter the address the short link should open, such as https://example.com/page.',
  urlInvalid: 'Enter a web address that starts with http:// or https://, such as https://example.com/page.',
  urlTooLong: `This address is too long: at most ${count.format(URL_MAX)} characters.`,
  aliasLength: `An alias is ${ALIAS_MIN} to ${ALIAS_MAX} characters long.`,
  aliasCharacters: 'Use only letters, digits, - and _ in an alias (no spaces or other signs).',
  dateInvalid: 'Enter a full date and time.',
  expiryPast: 'Choose an expiry in the future.',
  startAfterExpiry: 'The start must be before the expiry.',
  titleTooLong: `A title is at most ${TITLE_MAX} characters.`,
  tags: `Up to ${TAGS_COUNT_MAX} tags of at most ${TAG_MAX} characters each, without "|".`,
  clickLimit: `Enter a whole number of clicks from 1 to ${count.format(CLICK_LIMIT_MAX)}, or leave it empty for no limit.`,
  password: `A password is ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`,
  previewTitle: `A preview title is at most ${PREVIEW_TITLE_MAX} characters.`,
  previewDescription: `A preview description is at most ${count.format(PREVIEW_DESCRIPTION_MAX)} characters.`,
  imageUrl: 'Enter the image’s web address, starting with http:// or https://.',
  appUrl: 'Enter an app address such as myapp://open/page, or an https link the app opens.',
  ruleUrl: 'Enter where this rule sends people: a web address starting with http:// or https://.',
  ruleEmpty: 'Choose at least one condition for this rule: a device, a country, a language, a query parameter or a time.',
  ruleUntil: 'The end must be after the start.',
  variantUrl: 'Enter this variant’s web address, starting with http:// or https://.',
  weight: 'A weight is a whole number from 1 to 99.',
  weightsSum: (sum: number) => `The weights add up to ${sum}; they must add up to 100.`,
} as const;

/** Why `text` is no web address the API would take (`assumeHttps`: read as the target field reads it); undefined: it looks like one. */
function urlProblem(text: string, assumeHttps = false): 'invalid' | 'long' | undefined {
  const url = assumeHttps ? normaliseUrl(text).url : text.trim();
  if (url.length > URL_MAX) return 'long';
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '' ? undefined : 'invalid';
  } catch {
    return 'invalid';
  }
}

/** A `<input type=datetime-local>` value as a time (ms); undefined when empty, NaN when it is none. */
function timeOf(value: string): number | undefined {
  if (value.trim() === '') return undefined;
  return new Date(value).getTime();
}

/** Characters as the server counts them (core/field-values.ts codePoints): an emoji is one. */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function tagList(text: string): string[] {
  return text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/**
 * The problems of the values, first field first. `initial`: the values the form started with; an
 * expiry left as it was is not checked again (an expired link's edit keeps its date).
 */
export function checkLink(values: LinkFormValues, mode: 'create' | 'edit', now: number, initial?: LinkFormValues): Problem[] {
  const problems: Problem[] = [];
  const add = (field: string, message: string) => problems.push({ field, message });
  if (values.url.trim() === '') add('url', WORDS.urlMissing);
  else {
    const url = urlProblem(values.url, true);
    if (url !== undefined) add('url', url === 'long' ? WORDS.urlTooLong : WORDS.urlInvalid);
  }
  const alias = values.alias.trim();
  if (mode === 'create' && alias !== '' && !ALIAS_SHAPE.test(alias)) {
    add('alias', alias.length < ALIAS_MIN || alias.length > ALIAS_MAX ? WORDS.aliasLength : WORDS.aliasCharacters);
  }
  if (codePoints(values.title.trim()) > TITLE_MAX) add('title', WORDS.titleTooLong);
  const tags = tagList(values.tags);
  if (tags.length > TAGS_COUNT_MAX || tags.some((tag) => codePoints(tag) > TAG_MAX || tag.includes('|'))) add('tags', WORDS.tags);

  const starts = timeOf(values.startsAt);
  const expires = timeOf(values.expiresAt);
  if (starts !== undefined && Number.isNaN(starts)) add('startsAt', WORDS.dateInvalid);
  if (expires !== undefined) {
    if (Number.isNaN(expires)) add('expiresAt', WORDS.dateInvalid);
    else if (expires <= now && values.expiresAt !== initial?.expiresAt) add('expiresAt', WORDS.expiryPast);
    else if (starts !== undefined && starts >= expires) add('startsAt', WORDS.startAfterExpiry);
  }
  checkOptions(values.options, add);
  return problems;
}

function checkOptions(draft: OptionsDraft, add: (field: string, message: string) => void): void {
  if (draft.password !== '' && (codePoints(draft.password) < PASSWORD_MIN || codePoints(draft.password) > PASSWORD_MAX)) {
    add('options.password', WORDS.password);
  }
  const limit = draft.clickLimit.trim();
  if (limit !== '' && !(/^\d{1,10}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= CLICK_LIMIT_MAX)) {
    add('options.clickLimit', WORDS.clickLimit);
  }
  draft.rules.forEach((rule, i) => {
    const at = `options.targets[${i}]`;
    const conditions = rule.devices.length + rule.countries.trim().length + rule.languages.trim().length + rule.queryName.trim().length;
    const from = timeOf(rule.from);
    const until = timeOf(rule.until);
    if (conditions === 0 && from === undefined && until === undefined) add(`${at}.when`, WORDS.ruleEmpty);
    if (from !== undefined && Number.isNaN(from)) add(`${at}.when.from`, WORDS.dateInvalid);
    if (until !== undefined && Number.isNaN(until)) add(`${at}.when.until`, WORDS.dateInvalid);
    else if (from !== undefined && until !== undefined && until <= from) add(`${at}.when.until`, WORDS.ruleUntil);
    if (urlProblem(rule.url) !== undefined) add(`${at}.url`, WORDS.ruleUrl);
  });
  if (draft.variants.length > 0) {
    let sum = 0;
    let weightsOk = true;
    draft.variants.forEach((variant, i) => {
      const at = `options.split[${i}]`;
      if (urlProblem(variant.url) !== undefined) add(`${at}.url`, WORDS.variantUrl);
      const weight = variant.weight.trim();
      if (!/^\d{1,2}$/.test(weight) || Number(weight) < 1) {
        add(`${at}.weight`, WORDS.weight);
        weightsOk = false;
      } else sum += Number(weight);
    });
    if (weightsOk && sum !== 100) add('options.split', WORDS.weightsSum(sum));
  }
  if (codePoints(draft.previewTitle.trim()) > PREVIEW_TITLE_MAX) add('options.preview.title', WORDS.previewTitle);
  if (codePoints(draft.previewDescription.trim()) > PREVIEW_DESCRIPTION_MAX) add('options.preview.description', WORDS.previewDescription);
  if (draft.previewImage.trim() !== '' && urlProblem(draft.previewImage) !== undefined) add('options.preview.image', WORDS.imageUrl);
  for (const [platform, value] of [
    ['ios', draft.appIos],
    ['android', draft.appAndroid],
  ] as const) {
    if (value.trim() !== '' && !APP_URL.test(value.trim())) add(`options.deepLink.${platform}`, WORDS.appUrl);
  }
}
