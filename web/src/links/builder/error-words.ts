// The API's errors in people's words, on the field they are about: the API names the field
// (`error.field`), or its code belongs to one field (api/errors.ts fieldOf), or a schema error's
// message starts with it (`body.options.clickLimit must be integer.`).
import { ApiError, fieldOf } from '../../api/errors.ts';
import { WORDS } from './checks.ts';

/** The body field an API error is about, as the API names fields (`options.targets[1].url`); null: none. */
export function errorField(error: unknown): string | null {
  const named = fieldOf(error);
  if (named !== null) return named;
  if (!(error instanceof ApiError) || error.code !== 'BODY_INVALID') return null;
  const unknown = /^body(?:\.[\w.]+)? has an unknown field "(\w+)"/.exec(error.message);
  if (unknown !== null) return pathOf(`${/^body\.?([\w.]*)/.exec(error.message)?.[1] ?? ''}.${unknown[1]}`);
  const at = /^body\.([\w.]+)\s/.exec(error.message);
  return at === null ? null : pathOf(at[1] ?? '');
}

/** `options.targets.1.url` (a schema error's path) as the API's other errors name it: `options.targets[1].url`. */
function pathOf(dotted: string): string {
  return dotted.replace(/^\./, '').replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/** What a field is, for an error the table below has no sentence for. */
const BY_FIELD: readonly [RegExp, string][] = [
  [/^url$/, WORDS.urlInvalid],
  [/^alias$/, WORDS.aliasCharacters],
  [/^(expiresAt|startsAt)$/, WORDS.dateInvalid],
  [/^title$/, WORDS.titleTooLong],
  [/^tags/, WORDS.tags],
  [/^options\.clickLimit$/, WORDS.clickLimit],
  [/^options\.password$/, WORDS.password],
  [/^options\.preview\.image$/, WORDS.imageUrl],
  [/^options\.preview\.title$/, WORDS.previewTitle],
  [/^options\.preview\.description$/, WORDS.previewDescription],
  [/^options\.deepLink/, WORDS.appUrl],
  [/^options\.targets\[\d+\]\.url$/, WORDS.ruleUrl],
  [/^options\.targets\[\d+\]\.when\.country/, 'Use two-letter country codes separated by commas, such as DE, FR, US.'],
  [/^options\.targets\[\d+\]\.when\.language/, 'Use language codes separated by commas, such as de, pt-BR.'],
  [/^options\.targets\[\d+\]\.when\.(from|until)$/, WORDS.dateInvalid],
  [/^options\.targets\[\d+\]\.when$/, WORDS.ruleEmpty],
  [/^options\.split\[\d+\]\.weight$/, WORDS.weight],
  [/^options\.split\[\d+\]\.url$/, WORDS.variantUrl],
];

/** Sentences by error code, where the code says more than the field. */
const BY_CODE: Readonly<Record<string, string>> = {
  URL_NOT_ABSOLUTE: WORDS.urlInvalid,
  URL_SCHEME_NOT_ALLOWED: 'Only web addresses (http:// or https://) can be shortened.',
  URL_TOO_LONG: WORDS.urlTooLong,
  URL_CREDENTIALS_NOT_ALLOWED: 'Remove the user name and password from the address.',
  URL_CONTROL_CHARACTERS: 'The address contains invisible characters: type it again.',
  URL_SELF_REFERENCE: 'This is a short link of this service already: link to the final page instead.',
  URL_PRIVATE_ADDRESS: 'This address is on a private network, which people elsewhere cannot open.',
  URL_DOMAIN_BLOCKED: 'Links to this site are not allowed here.',
  URL_SHORTENER_NOT_ALLOWED: 'This is another link shortener’s address: link to the final page instead.',
  ALIAS_INVALID: `${WORDS.aliasLength} ${WORDS.aliasCharacters}`,
  ALIAS_RESERVED: 'This word is kept for the service’s own pages: choose another alias.',
  ALIAS_TAKEN: 'This alias is already taken on this domain: choose another.',
  EXPIRES_AT_IN_PAST: WORDS.expiryPast,
  EXPIRES_AT_INVALID: 'Enter a date and time within the next 100 years.',
  STARTS_AT_INVALID: WORDS.dateInvalid,
  STARTS_AT_NOT_BEFORE_EXPIRY: WORDS.startAfterExpiry,
  DOMAIN_UNKNOWN: 'This domain is not one of the workspace’s: choose another.',
  DOMAIN_NOT_VERIFIED: 'This domain is not verified yet: check its DNS record on the Domains page first.',
  REDIRECT_STATUS_INVALID: 'Choose one of the redirect types offered.',
  SPLIT_INVALID: 'The variants’ weights must be whole numbers from 1 to 99 that add up to 100.',
};

/** An error's sentence at `field` (null: an error of the whole form, whose own message is said). */
export function errorWords(error: unknown, field: string | null): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Try again.';
  const byField = field === null ? undefined : BY_FIELD.find(([pattern]) => pattern.test(field))?.[1];
  if (error.code === 'SPLIT_INVALID' && field === 'options.split') return BY_CODE.SPLIT_INVALID as string;
  if (error.code === 'TARGET_RULE_INVALID' && field !== null && field.endsWith('.until') && /after/.test(error.message))
    return WORDS.ruleUntil;
  return BY_CODE[error.code] ?? byField ?? plainMessage(error.message);
}

/** The API's message without the API's name of the field in front (`options.preview.title must …` → `Must …`). */
function plainMessage(message: string): string {
  const text = message.replace(/^(body\.)?(options\.)?[\w.[\]]+\s+(?=must|is|has|may)/, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
