// One table of coded errors. Clients branch on `code`; the message is for people and may change.

import { Type } from 'typebox';

export const ERRORS = {
  // 400: the request is malformed
  BAD_REQUEST: { status: 400, message: 'The request is malformed.' },
  HOST_INVALID: { status: 400, message: 'Send one Host header with a valid host name (RFC 9112, section 3.2).' },
  BODY_INVALID_JSON: { status: 400, message: 'The request body is not valid JSON (or uses __proto__ or constructor.prototype keys).' },
  BODY_EMPTY: { status: 400, message: 'The request body is empty; send a JSON object.' },
  BODY_INVALID: { status: 400, message: 'The request body does not match the expected shape.' },
  URL_INVALID: { status: 400, message: 'url is not a valid absolute http(s) URL.' },
  URL_NOT_ABSOLUTE: { status: 400, message: 'url must be absolute and start with http:// or https://.' },
  URL_SCHEME_NOT_ALLOWED: { status: 400, message: 'url must use http or https.' },
  URL_TOO_LONG: { status: 400, message: 'url is longer than 2048 characters once normalised.' },
  URL_CREDENTIALS_NOT_ALLOWED: { status: 400, message: 'url must not contain a user name or password.' },
  URL_CONTROL_CHARACTERS: { status: 400, message: 'url contains control or invisible formatting characters.' },
  URL_SELF_REFERENCE: { status: 400, message: 'url points at this shortener itself.' },
  URL_PRIVATE_ADDRESS: {
    status: 400,
    message: 'url points at a loopback, private, link-local or otherwise non-public address or host name.',
  },
  URL_DOMAIN_BLOCKED: { status: 400, message: 'url points at a domain this service does not link to.' },
  URL_BLOCKLISTED: { status: 400, message: 'url is on a blocklist of this service.' },
  URL_SHORTENER_NOT_ALLOWED: { status: 400, message: 'url points at another URL shortener; link to the final destination instead.' },
  ALIAS_INVALID: { status: 400, message: 'alias must be 3 to 64 characters of A-Z, a-z, 0-9, "_" and "-".' },
  ALIAS_RESERVED: { status: 400, message: 'alias is a reserved word of this service.' },
  EXPIRES_AT_INVALID: { status: 400, message: 'expiresAt must be an RFC 3339 date-time with a time zone, or null.' },
  EXPIRES_AT_IN_PAST: { status: 400, message: 'expiresAt must be in the future.' },
  STARTS_AT_INVALID: { status: 400, message: 'startsAt must be an RFC 3339 date-time with a time zone, or null.' },
  STARTS_AT_NOT_BEFORE_EXPIRY: { status: 400, message: 'The link must start before it expires: set startsAt earlier than expiresAt.' },
  QR_OPTIONS_INVALID: {
    status: 400,
    message: 'format must be svg or png, size an integer from 64 to 2048, margin from 0 to 16, level one of L, M, Q, H.',
  },
  REPORT_INVALID: {
    status: 400,
    message:
      'A report needs a short URL and a reason (phishing, malware, spam, illegal, other); a message of at most 1000 characters and a valid email, if any.',
  },
  REPORT_FORM_EXPIRED: { status: 400, message: 'The report form is too old, or did not come from this service: load it again.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time; the connection is closed.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request line and headers are larger than the server accepts.' },
  API_KEY_REQUIRED: { status: 401, message: 'This needs an API key: send Authorization: Bearer <key> or X-API-Key.' },
  API_KEY_INVALID: { status: 401, message: 'The API key is not valid, or has been revoked.' },
  API_KEY_NOT_OWNER: { status: 403, message: 'Only the key that created this link, or an admin of its workspace, may change it.' },
  ROLE_FORBIDDEN: { status: 403, message: "This key's role in its workspace does not allow this." },
  NOT_SIGNED_IN: { status: 401, message: 'Sign in first: no session cookie came with this request.' },
  SESSION_EXPIRED: { status: 401, message: 'The session has expired or was closed; sign in again.' },
  SIGN_IN_FAILED: { status: 401, message: 'The email address or the password is wrong.' },
  SETUP_TOKEN_INVALID: {
    status: 403,
    message: 'From an address other than loopback, setting up the first admin needs the setup token the server logged at start.',
  },
  OPERATOR_REQUIRED: {
    status: 403,
    message: 'This is done by an operator of the deployment, signed in to the dashboard (docs/operators.md).',
  },
  WORKSPACE_SUSPENDED: {
    status: 403,
    message: "This workspace is suspended by the deployment's operators: it may read, not change. Ask them why.",
  },
  PERSON_REQUIRED: { status: 403, message: 'This is done by a person signed in to the dashboard, not with an API key.' },
  SSO_REQUIRED: { status: 403, message: 'This workspace requires single sign-on: sign in with SSO.' },
  SSO_FAILED: { status: 401, message: 'The single sign-on provider did not confirm who you are: try again.' },
  SSO_EMAIL_UNVERIFIED: {
    status: 403,
    message: 'The single sign-on provider did not say your email address is verified: it cannot sign you in here.',
  },
  SSO_EMAIL_DOMAIN_NOT_ACCEPTED: {
    status: 403,
    message: 'No account has this email address, and no workspace takes people of its domain: ask an admin to invite you.',
  },
  SECOND_FACTOR_REQUIRED: {
    status: 403,
    message: 'This workspace requires a second factor: add a passkey or an authenticator app in your profile, and sign in with it.',
  },
  CURRENT_PASSWORD_WRONG: { status: 403, message: 'The current password is wrong.' },
  SECOND_FACTOR_INVALID: { status: 401, message: 'The code, recovery code or passkey is not right: try again.' },
  SECOND_FACTOR_TICKET_INVALID: {
    status: 401,
    message: 'This sign-in has expired, was completed already, or is unknown: sign in with your password again.',
  },
  PASSKEY_INVALID: { status: 401, message: 'This passkey could not sign you in: it is unknown here, or its answer did not check out.' },
  TOTP_CODE_WRONG: { status: 403, message: 'The code from the authenticator app is not right (or was used already): try the next one.' },
  PASSKEY_REGISTRATION_FAILED: {
    status: 400,
    message: "The authenticator's answer did not check out, or took longer than five minutes: add the passkey again.",
  },
  IDEMPOTENCY_KEY_INVALID: { status: 400, message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' },
  STATS_RANGE_INVALID: { status: 400, message: 'from and to must be dates (YYYY-MM-DD), from not after to, at most 366 days apart.' },
  STATS_QUERY_INVALID: {
    status: 400,
    message:
      'dimensions must be a comma-separated list of referrer, country, city, device, browser, os, language, source, target (or all), ' +
      'and limit an integer from 1 to 100.',
  },
  TITLE_INVALID: { status: 400, message: 'title must be at most 200 characters, without control characters.' },
  TAGS_INVALID: {
    status: 400,
    message: 'tags must be at most 10 strings of 1 to 40 characters, without control characters, commas or "|".',
  },
  REDIRECT_STATUS_INVALID: { status: 400, message: 'options.redirectStatus must be 301, 302, 307 or 308.' },
  TARGET_RULE_INVALID: {
    status: 400,
    message: 'A rule of options.targets is not valid: {"when": {device, country, language, query, from, until}, "url": …}.',
  },
  SPLIT_INVALID: {
    status: 400,
    message: 'options.split must list 2 to 10 variants {"url": …, "weight": 1–99} whose weights sum to 100.',
  },
  PREVIEW_INVALID: {
    status: 400,
    message:
      'options.preview must be {"title", "description", "image"}: at least one, texts without control characters, the image an http(s) URL.',
  },
  DEEP_LINK_INVALID: {
    status: 400,
    message: 'options.deepLink must be {"ios", "android"}: each an app URL such as myapp://path, or an https universal or app link.',
  },
  PASSWORD_INVALID: {
    status: 400,
    message: 'options.password must be 8 to 128 characters without control characters, or true to keep the password the link has.',
  },
  CLICK_LIMIT_INVALID: { status: 400, message: 'options.clickLimit must be a whole number from 1 to 1000000000, or null.' },
  LIST_QUERY_INVALID: { status: 400, message: 'A query parameter of the link list is not one it accepts.' },
  CURSOR_INVALID: { status: 400, message: 'cursor is not one this list gave; start again from the first page.' },
  NAME_INVALID: { status: 400, message: 'name must be 1 to 100 characters, without control characters.' },
  EMAIL_INVALID: { status: 400, message: 'email must be an email address such as ada@example.com.' },
  PASSWORD_TOO_SHORT: { status: 400, message: 'password must be at least 8 characters.' },
  PASSWORD_TOO_LONG: { status: 400, message: 'password must be at most 256 characters.' },
  PASSWORD_TOO_COMMON: {
    status: 400,
    message: 'password is one of the most common passwords, or is your email address or name: choose another.',
  },
  EMAIL_TOKEN_INVALID: { status: 400, message: 'This link is not valid, was used already, or has expired: ask for a new one.' },
  AUDIT_QUERY_INVALID: { status: 400, message: 'A query parameter of the audit log is not one it accepts.' },
  WORKSPACE_SETTINGS_INVALID: { status: 400, message: 'A workspace setting is not one it accepts.' },
  BRAND_NAME_INVALID: { status: 400, message: 'brand.name must be 1 to 60 characters, without control characters, or null.' },
  BRAND_COLOR_INVALID: { status: 400, message: 'brand.color must be a colour such as #1a2b3c or #abc, or null.' },
  BRAND_LOGO_INVALID: { status: 400, message: 'brand.logo must be a base64 data: URL such as data:image/png;base64,…, or null.' },
  BRAND_LOGO_TYPE: { status: 400, message: 'brand.logo must be a PNG, JPEG or WebP image (SVG is not taken: it can carry script).' },
  BRAND_LOGO_TOO_LARGE: { status: 400, message: 'brand.logo must be at most 32 KiB.' },
  DEFAULT_DOMAIN_UNKNOWN: { status: 400, message: 'defaultDomain is not a short domain of this workspace (GET /domains lists them).' },
  SESSION_HOURS_INVALID: { status: 400, message: 'sessionHours must be a whole number of hours from 1 to 8760, or null.' },
  SSO_STATE_INVALID: {
    status: 400,
    message: 'This single sign-on did not start in this browser, or took longer than 10 minutes: start it again.',
  },
  IMPORT_INVALID: { status: 400, message: 'The file is not a CSV file this service can import.' },
  IMPORT_ROW_INVALID: { status: 400, message: 'This row of the file cannot be read as a link.' },
  CSRF_TOKEN_INVALID: {
    status: 403,
    message: 'A change made with a session cookie needs the X-CSRF-Token header that signing in gave.',
  },
  ANONYMOUS_CREATE_LIMITED: {
    status: 403,
    message: 'A link created without an API key is a plain link on the default domain: send a key for domains and options.',
  },
  // 404, 409, 410
  DOMAIN_INVALID: { status: 400, message: 'host must be a host name such as go.example.com: no scheme, port, path or IP address.' },
  DOMAIN_UNKNOWN: { status: 400, message: 'domain is not a short domain of this workspace (GET /domains lists them).' },
  DOMAIN_DEFAULT: { status: 400, message: "The default domain is BASE_URL's host: it is configured, not added, changed or removed." },
  WEBHOOK_EVENTS_INVALID: {
    status: 400,
    message:
      'events must list one or more of link.created, link.updated, link.deleted, link.expiring, link.expired, link.click_limit_reached, link.clicked, link.blocked, link.flagged, link.target_broken, link.target_recovered, workspace.health_digest.',
  },
  WEBHOOK_DESCRIPTION_INVALID: { status: 400, message: 'description must be at most 200 characters, without control characters.' },
  WEBHOOK_QUERY_INVALID: {
    status: 400,
    message: 'state must be pending, sending, delivered or dead; before a delivery id; limit an integer from 1 to 100.',
  },
  LINK_NOT_FOUND: { status: 404, message: 'No link has this code.' },
  LINK_NOT_YET_ACTIVE: { status: 404, message: 'This link is not live yet: come back a little later.' },
  DOMAIN_NOT_FOUND: { status: 404, message: 'This workspace has no domain with this host.' },
  HOST_NOT_SERVED: { status: 404, message: 'This deployment serves no short domain with this host name.' },
  KEY_NOT_FOUND: { status: 404, message: 'No active key of this workspace has this id.' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'This workspace has no webhook endpoint with this id.' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: 'This webhook endpoint has no delivery with this id.' },
  MEMBER_NOT_FOUND: { status: 404, message: 'This workspace has no member with this id.' },
  INVITATION_NOT_FOUND: { status: 404, message: 'This workspace has no open invitation with this id.' },
  INVITATION_INVALID: { status: 404, message: 'This invitation is not valid, was used or withdrawn, or has expired: ask for a new one.' },
  SESSION_NOT_FOUND: { status: 404, message: 'You have no open session with this id.' },
  PASSKEY_NOT_FOUND: { status: 404, message: 'You have no passkey with this id.' },
  WORKSPACE_NOT_FOUND: { status: 404, message: 'You are not a member of a workspace with this id.' },
  REPORT_NOT_FOUND: { status: 404, message: 'No abuse report has this id.' },
  REPORTED_LINK_NOT_FOUND: { status: 404, message: 'This is not the address of a short link of this service.' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No such route.' },
  ROUTE_NOT_ON_HOST: { status: 404, message: 'This host serves short links only: the API, dashboard and docs answer on the API host.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed on this route.' },
  EXPECTATION_FAILED: { status: 417, message: 'The only expectation this service meets is Expect: 100-continue.' },
  ALIAS_TAKEN: { status: 409, message: 'This alias is already taken.' },
  CONFLICT: { status: 409, message: 'The request conflicts with data that exists already.' },
  DOMAIN_TAKEN: { status: 409, message: 'This host is already a short domain of this deployment.' },
  DOMAIN_IN_USE: { status: 409, message: 'Links use this domain: delete them, or remove it with moveLinksTo=<another domain>.' },
  DOMAIN_MOVE_CONFLICT: { status: 409, message: 'Some aliases of this domain exist on the domain its links would move to.' },
  DOMAIN_CLAIM_PENDING: {
    status: 409,
    message: 'Another workspace has added this host and is verifying it; it may be claimed once that claim expires.',
  },
  DOMAIN_NOT_VERIFIED: {
    status: 409,
    message: "This domain's DNS record is not verified yet: publish the TXT record GET /domains shows, then POST /domains/:host/verify.",
  },
  DOMAIN_VERIFICATION_FAILED: { status: 409, message: "The domain's TXT record _shortener.<host> does not hold its token." },
  WEBHOOK_DISABLED: { status: 409, message: 'This webhook endpoint is disabled, and is sent nothing: enable it first.' },
  WEBHOOK_LIMIT_REACHED: { status: 409, message: 'This workspace has 20 webhook endpoints, the most it may have: remove one first.' },
  LAST_ADMIN_KEY: { status: 409, message: "This is the workspace's last admin key: create another admin key before revoking it." },
  LAST_ADMIN: { status: 409, message: "This is the workspace's last admin: make another member an admin first." },
  SETUP_DONE: { status: 409, message: 'The first admin has been set up: sign in instead.' },
  EMAIL_TAKEN: { status: 409, message: 'A person with this email address exists: sign in with it.' },
  ALREADY_MEMBER: { status: 409, message: 'A person with this email address is a member of this workspace already.' },
  MAIL_NOT_CONFIGURED: { status: 409, message: 'This service sends no email (SMTP_URL is not set): make a link and pass it on yourself.' },
  SSO_NOT_CONFIGURED: { status: 409, message: 'Single sign-on is not set up on this service (OIDC_ISSUER and OIDC_CLIENT_ID).' },
  SSO_IDENTITY_CONFLICT: {
    status: 409,
    message: "This email address's account signs in with another identity of this provider: an admin must sort it out.",
  },
  SSO_SIGN_IN_FIRST: {
    status: 409,
    message: 'Sign in with single sign-on before requiring it: a session signed in otherwise would be locked out.',
  },
  PASSKEYS_UNAVAILABLE: {
    status: 409,
    message: 'Passkeys need a secure origin on a domain name: BASE_URL is neither https nor http on localhost, or is an IP address.',
  },
  TOTP_NOT_ENABLED: { status: 409, message: 'You have no authenticator app set up.' },
  TOTP_NOT_STARTED: { status: 409, message: 'No authenticator app is being set up: start again (POST /auth/totp).' },
  SECOND_FACTOR_NONE: { status: 409, message: 'Add a passkey or an authenticator app first.' },
  SECOND_FACTOR_LAST: {
    status: 409,
    message: 'This is your last second factor and a workspace of yours requires one: add another before removing it.',
  },
  SECOND_FACTOR_FIRST: {
    status: 409,
    message: 'Sign in with a second factor before requiring one: a session signed in without would be locked out.',
  },
  LINK_EXPIRED: { status: 410, message: 'This link has expired.' },
  LINK_DISABLED: { status: 410, message: 'This link has been disabled.' },
  LINK_CLICK_LIMIT_REACHED: { status: 410, message: 'This link has given all the clicks it was made for.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'This Idempotency-Key was used with a different request.' },
  LINK_BLOCKED: {
    status: 451,
    message:
      'This link has been blocked: its destination is on a list of sites known for phishing, malware or abuse, or its workspace was suspended for abuse.',
  },
  // 413, 415, 429
  BODY_TOO_LARGE: {
    status: 413,
    message: 'The request body is larger than this route accepts (8 KiB; 2.5 MiB for /links/bulk, 5 MiB for /links/import).',
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send the body as application/json.' },
  RATE_LIMITED: { status: 429, message: 'Too many links created; retry after Retry-After seconds.' },
  SIGN_IN_RATE_LIMITED: { status: 429, message: 'Too many failed sign-ins from this address; retry after Retry-After seconds.' },
  SECOND_FACTOR_RATE_LIMITED: {
    status: 429,
    message: 'Too many wrong codes for this account or from this address; retry after Retry-After seconds.',
  },
  PASSWORD_RATE_LIMITED: {
    status: 429,
    message: 'Too many wrong passwords for this link from this address; retry after Retry-After seconds.',
  },
  CREDENTIALS_RATE_LIMITED: {
    status: 429,
    message: 'Too many API keys or session cookies this service did not know came from this address; retry after Retry-After seconds.',
  },
  WEBHOOK_RESEND_RATE_LIMITED: {
    status: 429,
    message: 'This workspace has sent deliveries again too often; retry after Retry-After seconds.',
  },
  WEBHOOK_TEST_RATE_LIMITED: {
    status: 429,
    message: 'This workspace has sent test events and deliveries again too often; retry after Retry-After seconds.',
  },
  DOMAIN_CHECK_RATE_LIMITED: {
    status: 429,
    message: 'This workspace has checked its domains too often; retry after Retry-After seconds.',
  },
  TOO_MANY_SLOW_REQUESTS: {
    status: 429,
    message: 'This workspace has as many exports and searches under way as it may have at once; retry after Retry-After seconds.',
  },
  REPORT_RATE_LIMITED: { status: 429, message: 'Thank you: we have had many reports from here just now. Please try again later.' },
  NOT_FOUND_RATE_LIMITED: {
    status: 429,
    message: 'Too many requests for codes that do not exist from this address; retry after Retry-After seconds.',
  },
  // 5xx: the service or a dependency is unwell; retry after Retry-After
  WRITE_QUEUE_FULL: { status: 503, message: 'Too many links are waiting to be written; retry shortly.' },
  WRITE_QUEUE_SHARE_FULL: { status: 503, message: "This workspace's links take its whole share of the write queue; retry shortly." },
  DATABASE_UNAVAILABLE: { status: 503, message: 'The database is unavailable; retry shortly.' },
  DATABASE_TIMEOUT: { status: 503, message: 'The database did not answer in time; retry shortly.' },
  PASSWORD_CHECKS_BUSY: { status: 503, message: 'Too many passwords are being checked at once; retry after Retry-After seconds.' },
  SHUTTING_DOWN: { status: 503, message: 'This instance is shutting down; retry on another.' },
  CODES_EXHAUSTED: { status: 503, message: 'The generated code space is exhausted; raise CODE_LENGTH.' },
  DOMAIN_DNS_UNAVAILABLE: { status: 503, message: 'The DNS servers did not answer about the verification record; retry shortly.' },
  MAIL_UNAVAILABLE: { status: 503, message: 'The mail server did not take the message; retry shortly.' },
  SSO_UNAVAILABLE: { status: 503, message: 'The single sign-on provider did not answer in time; retry shortly.' },
  DASHBOARD_NOT_BUILT: { status: 503, message: 'The dashboard has not been built: run npm run build:app (npm ci does it).' },
  INTERNAL: { status: 500, message: 'Internal error.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Seconds a client should wait before retrying a 503. */
const RETRY_AFTER_SECONDS = 1;

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** The field of the request body the error is about, where it is one field's. */
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string = ERRORS[code].message, options?: ErrorOptions & { field?: string }) {
    super(message, options);
    this.code = code;
    this.statusCode = ERRORS[code].status;
    this.field = options?.field;
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** The JSON body of every error answer; `field`: the body field it is about, where it is one's. */
export function errorBody(code: ErrorCode, message: string = ERRORS[code].message, field?: string): string {
  return JSON.stringify({ error: field === undefined ? { code, message } : { code, message, field } });
}

/**
 * The headers of every error answer besides its length. A 404 may become a link a second later,
 * so nothing is kept by a browser or a CDN; a 503 says when to retry.
 */
export function errorHeaders(code: ErrorCode): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  if (ERRORS[code].status === 503) headers['retry-after'] = String(RETRY_AFTER_SECONDS);
  if (ERRORS[code].status === 401) headers['www-authenticate'] = 'Bearer';
  return headers;
}

/** Every error answer's body, {"error": {"code", "message", "field"?}}, for validation and the OpenAPI document. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable error code; branch on it.', examples: ['LINK_NOT_FOUND'] }),
      message: Type.String({ description: 'For people; may change.' }),
      field: Type.Optional(Type.String({ description: 'The body field the error is about, where it is one field’s.' })),
    }),
  },
  { $id: 'Error', title: 'Error' },
);

/** Error answers a route may give, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody]));
}
