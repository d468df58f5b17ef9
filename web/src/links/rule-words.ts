// A link's options in plain words, for people who never read the API: each targeting rule, the A/B
// split, and the other options as one short sentence each, and an analytics `target` value (`rule 1`,
// `variant A`, `url`: src/core/redirect-rules.ts TARGET_VALUES) as the words of what it stands for.
// Pure: no I/O, no DOM; English, as the rest of the dashboard.
import type { LinkOptions, TargetCondition } from './api.ts';

/** What the sentences need of a link: its own URL and its options. */
export interface LinkRules {
  readonly url: string;
  readonly options: LinkOptions | null;
}

const DEVICE_WORDS: Readonly<Record<string, string>> = {
  ios: 'iPhone or iPad',
  android: 'Android',
  mobile: 'a phone',
  tablet: 'a tablet',
  desktop: 'a computer',
};

const STATUS_WORDS: Readonly<Record<number, string>> = {
  301: 'Redirects permanently (301): browsers and search engines may remember the target.',
  302: 'Redirects temporarily (302).',
  307: 'Redirects temporarily, keeping the request method (307).',
  308: 'Redirects permanently, keeping the request method (308).',
};

let regions: Intl.DisplayNames | undefined;
let languages: Intl.DisplayNames | undefined;

/** A country's name in English (`FR`: France); the code itself if it has none. */
export function countryName(code: string): string {
  regions ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  try {
    return regions.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** A language's name in English (`pt-BR`: Brazilian Portuguese); the tag itself if it has none. */
export function languageName(tag: string): string {
  languages ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });
  try {
    return languages.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** "a", "a or b", "a, b or c". */
export function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1) ?? ''}`;
}

function andList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

function moment(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : when.format(at);
}

/** Who a rule's condition picks, after "Visitors": "on iPhone or iPad from France or Belgium". */
export function audienceWords(condition: TargetCondition): string {
  const parts: string[] = [];
  if (condition.device !== undefined && condition.device.length > 0)
    parts.push(`on ${orList(condition.device.map((device) => DEVICE_WORDS[device] ?? device))}`);
  if (condition.country !== undefined && condition.country.length > 0) parts.push(`from ${orList(condition.country.map(countryName))}`);
  if (condition.language !== undefined && condition.language.length > 0)
    parts.push(`whose browser prefers ${orList(condition.language.map(languageName))}`);
  if (condition.query !== undefined) {
    const { name, value } = condition.query;
    parts.push(value === undefined ? `arriving with “${name}” in the address` : `arriving with “${name}=${value}” in the address`);
  }
  if (condition.from !== undefined && condition.until !== undefined)
    parts.push(`between ${moment(condition.from)} and ${moment(condition.until)}`);
  else if (condition.from !== undefined) parts.push(`from ${moment(condition.from)} on`);
  else if (condition.until !== undefined) parts.push(`until ${moment(condition.until)}`);
  return parts.join(' ');
}

/** A share of the visitors: "Half of visitors", "30% of the other visitors" (`others`: after rules). */
export function shareWords(weight: number, others = false): string {
  const whom = others ? 'the other visitors' : 'visitors';
  if (weight === 50) return `Half of ${whom}`;
  if (weight === 25) return `A quarter of ${whom}`;
  if (weight === 75) return `Three quarters of ${whom}`;
  return `${weight}% of ${whom}`;
}

const variantName = (index: number): string => String.fromCharCode(65 + index);

/** Rule `index` (from 0) as a sentence: "Visitors on iPhone or iPad go to https://…". */
function ruleSentence(rule: { when: TargetCondition; url: string }): string {
  const audience = audienceWords(rule.when);
  return audience === '' ? `Every visitor goes to ${rule.url}.` : `Visitors ${audience} go to ${rule.url}.`;
}

function variantSentence(variant: { url: string; weight: number }, index: number, others: boolean): string {
  return `${shareWords(variant.weight, others)} (variant ${variantName(index)}) go to ${variant.url}.`;
}

/**
 * Where a link sends whom, in order: its rules (the first that matches wins), then the split or
 * its own URL for everyone else. Empty for a link without rules or split (it simply goes to its URL).
 */
export function routeSentences(link: LinkRules): string[] {
  const targets = link.options?.targets ?? [];
  const split = link.options?.split ?? [];
  if (targets.length === 0 && split.length === 0) return [];
  const sentences = targets.map(ruleSentence);
  if (split.length > 0) sentences.push(...split.map((variant, i) => variantSentence(variant, i, targets.length > 0)));
  else sentences.push(`Everyone else goes to ${link.url}.`);
  return sentences;
}

/** The options besides where visitors go, a sentence each: password, click limit, preview, apps, status, query. */
export function optionSentences(options: LinkOptions | null): string[] {
  if (options === null) return [];
  const sentences: string[] = [];
  if (options.password === true || typeof options.password === 'string') sentences.push('Visitors must enter a password first.');
  if (typeof options.clickLimit === 'number') {
    const n = options.clickLimit.toLocaleString('en-US');
    sentences.push(options.clickLimit === 1 ? 'Works for 1 click, then stops.' : `Works for ${n} clicks, then stops.`);
  }
  if (options.preview !== undefined && options.preview !== null) {
    const title = options.preview.title;
    sentences.push(
      title === undefined || title === ''
        ? 'Social networks and chat apps show a preview of your own.'
        : `Social networks and chat apps show a preview titled “${title}”.`,
    );
  }
  if (options.deepLink !== undefined && options.deepLink !== null) {
    const apps = [
      ...(options.deepLink.ios === undefined ? [] : ['iPhone and iPad']),
      ...(options.deepLink.android === undefined ? [] : ['Android']),
    ];
    if (apps.length > 0) sentences.push(`Visitors on ${andList(apps)} open the app first, the web page if they do not have it.`);
  }
  if (options.redirectStatus !== undefined && options.redirectStatus !== null) {
    const words = STATUS_WORDS[options.redirectStatus];
    if (words !== undefined) sentences.push(words);
  }
  if (options.forwardQuery === true) sentences.push('Anything after “?” in the short link is passed on to the target.');
  if (options.forwardQuery === false) sentences.push('Anything after “?” in the short link is not passed on.');
  return sentences;
}

/** Every sentence of a link's options: where visitors go, then the rest. Empty for a plain link. */
export function ruleWords(link: LinkRules): string[] {
  return [...routeSentences(link), ...optionSentences(link.options)];
}

/**
 * An analytics `target` value (`rule 2`, `variant A`, `url`) in the words of what it stands for on
 * `link`: "Visitors from France or Belgium go to https://…". A value the link no longer has (its
 * rules changed since) says so; anything else (`other`) is returned as it is.
 */
export function targetWords(target: string, link: LinkRules): string {
  const targets = link.options?.targets ?? [];
  const split = link.options?.split ?? [];
  if (target === 'url') return targets.length === 0 && split.length === 0 ? `Goes to ${link.url}.` : `Everyone else goes to ${link.url}.`;
  const rule = /^rule (\d{1,2})$/.exec(target);
  if (rule !== null) {
    const n = Number(rule[1]);
    const found = targets[n - 1];
    return found === undefined ? `Rule ${n} (no longer on this link).` : ruleSentence(found);
  }
  const variant = /^variant ([A-Z])$/.exec(target);
  if (variant !== null) {
    const index = (variant[1] ?? 'A').charCodeAt(0) - 65;
    const found = split[index];
    return found === undefined
      ? `Variant ${variant[1] ?? ''} (no longer on this link).`
      : variantSentence(found, index, targets.length > 0);
  }
  return target;
}
