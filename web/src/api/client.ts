// The dashboard's only data source: a typed wrapper over the service's JSON API (same origin, session cookie).
// Every state-changing request carries the session's CSRF token, kept in memory only; every error becomes an
// ApiError with the API's stable code, so callers branch on `code` and show `message` to people.

export type Role = 'admin' | 'member' | 'viewer';
export type LinkState = 'active' | 'expired' | 'disabled';

export interface Session {
  workspace: { id: number; name: string };
  key: { id: number; name: string; role: Role };
  csrfToken: string;
  expiresAt: string;
}

export interface Link {
  code: string;
  /** The host of the link's short domain; the same code may exist on two domains. */
  domain: string;
  shortUrl: string;
  url: string;
  title: string | null;
  tags: string[];
  expiresAt: string | null;
  disabled: boolean;
  state: LinkState;
  createdAt: string;
  creator: { id: number; name: string } | null;
  clicks: number;
  botClicks: number;
  /** Options beyond the URL; null: a plain link. */
  options: LinkOptions | null;
}

/** A rule's condition: every part given must hold (README: Link options). */
export interface TargetCondition {
  device?: string[];
  country?: string[];
  language?: string[];
  query?: { name: string; value?: string };
  from?: string;
  until?: string;
}

export interface LinkOptions {
  redirectStatus?: number | null;
  forwardQuery?: boolean | null;
  targets?: { when: TargetCondition; url: string }[] | null;
  split?: { url: string; weight: number }[] | null;
  preview?: { title?: string; description?: string; image?: string } | null;
  deepLink?: { ios?: string; android?: string } | null;
  /** A new password; true: the link has one (and, sent back, keeps it). */
  password?: string | true | null;
  clickLimit?: number | null;
}

export interface LinkPage {
  links: Link[];
  nextCursor: string | null;
}

export interface ListQuery {
  q?: string;
  domain?: string;
  tag?: string;
  state?: LinkState;
  creator?: number;
  sort?: 'created' | 'clicks';
}

export interface NewLink {
  url: string;
  /** A host of the workspace's domains; absent: the default domain. */
  domain?: string;
  alias?: string;
  expiresAt?: string | null;
  title?: string | null;
  tags?: string[];
  options?: LinkOptions | null;
}

export interface CreatedLink {
  code: string;
  domain: string;
  shortUrl: string;
  url: string;
  expiresAt: string | null;
  title: string | null;
  tags: string[];
  options: LinkOptions | null;
}

export interface LinkChanges {
  url?: string;
  expiresAt?: string | null;
  disabled?: boolean;
  title?: string | null;
  tags?: string[];
  options?: LinkOptions | null;
}

/**
 * Names one link: its code, and the host of its domain when that is not the default domain (null: the default
 * domain, which the API takes when no `domain` is given).
 */
export interface LinkKey {
  code: string;
  domain: string | null;
}

/** What a click is counted by, besides its day; the operator may switch any of them off (and `city` is off without a city database). */
export const DIMENSIONS = ['referrer', 'country', 'city', 'device', 'browser', 'os', 'language', 'source', 'target'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Clicks by people and by bots, and the approximate number of people behind them. */
export interface Counts {
  clicks: number;
  botClicks: number;
  visitors: number;
}

export interface DailyClicks extends Counts {
  day: string;
}

/** One value of a dimension (a country, a referrer's host…); `other` is the bucket of values past what is kept apart. */
export interface DimensionValue extends Counts {
  value: string;
  other?: boolean;
}

/** The requested dimensions the operator has on, each most clicked first. */
export type Breakdown = Partial<Record<Dimension, DimensionValue[]>>;

export interface StatsQuery {
  from: string;
  to: string;
  /** 'all': every dimension the operator has on. */
  dimensions: 'all' | readonly Dimension[];
  /** Values per dimension (and links of a workspace), 1 to 100. */
  limit: number;
}

/** A period's numbers, for one link or a whole workspace. */
export interface RangeStats {
  from: string;
  to: string;
  range: Counts;
  daily: DailyClicks[];
  dimensions: Breakdown;
  /** The relative standard error of every visitor count (0.0163: about ±1.6 %). */
  visitorsError: number;
}

export interface Stats extends RangeStats {
  code: string;
  /** Every click the link ever had. */
  total: { clicks: number; botClicks: number };
}

export interface TopLink {
  code: string;
  /** The host of the link's domain (the default domain's too, as in a link's view). */
  domain: string;
  shortUrl: string;
  url: string;
  title: string | null;
  clicks: number;
  botClicks: number;
}

/** Requests for a code or path that no link of the workspace's domains has; `other` sums the paths past those kept apart. */
export interface OrphanPath {
  /** The host of the domain it was asked on. */
  domain: string;
  path: string;
  other?: boolean;
  visits: number;
}

export interface WorkspaceStats extends RangeStats {
  topLinks: TopLink[];
  orphans: { visits: number; daily: { day: string; visits: number }[]; top: OrphanPath[] };
}

export interface TagCount {
  tag: string;
  links: number;
}

export interface Domain {
  host: string;
  isDefault: boolean;
  rootRedirect: string | null;
  notFoundRedirect: string | null;
  expiredRedirect: string | null;
  links: number;
  createdAt: string | null;
}

/** The three addresses a domain can send people to instead of the service's own 404 or 410 answer. */
export const FALLBACKS = ['rootRedirect', 'notFoundRedirect', 'expiredRedirect'] as const;
export type Fallback = (typeof FALLBACKS)[number];

export type DomainFallbacks = Partial<Record<Fallback, string | null>>;

export interface NewDomain extends DomainFallbacks {
  host: string;
}

export const IMPORT_FORMATS = ['auto', 'generic', 'bitly', 'yourls', 'kutt', 'shlink'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportRow {
  row: number;
  status: 'created' | 'existing' | 'failed';
  code?: string;
  shortUrl?: string;
  error?: { code: string; message: string };
}

export interface ImportReport {
  format: string;
  rows: number;
  created: number;
  existing: number;
  failed: number;
  results: ImportRow[];
}

export interface ApiKey {
  id: number;
  name: string;
  role: Role;
  createdAt: string;
  revokedAt: string | null;
}

export interface CreatedKey {
  id: number;
  name: string;
  role: Role;
  createdAt: string;
  key: string;
}

/** The events an endpoint may take (README: Webhooks), in the API's order. */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.expired',
  'link.click_limit_reached',
  'link.clicked',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface Webhook {
  id: number;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** Until when the secret before the last rotation signs too; null: no overlap under way. */
  previousSecretExpiresAt: string | null;
  /** Deliveries waiting or under way. */
  pending: number;
  /** Deliveries that failed their last try (resendable). */
  dead: number;
}

export interface CreatedWebhook extends Webhook {
  secret: string;
}

export interface WebhookFields {
  url: string;
  events: WebhookEvent[];
  description: string;
  enabled: boolean;
}

export interface WebhookSecret {
  secret: string;
  previousSecretExpiresAt: string | null;
}

export const DELIVERY_STATES = ['pending', 'sending', 'delivered', 'dead'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export interface Delivery {
  id: number;
  /** The webhook-id header: the same on every try and resend of the event. */
  webhookId: string;
  type: string;
  state: DeliveryState;
  attempts: number;
  /** The HTTP status of the last try; null: no answer. */
  lastStatus: number | null;
  lastError: string | null;
  latencyMs: number | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  /** The `before` of the next page; null: the last page. */
  next: string | null;
}

/** An answer that is not a success, or no answer at all (status 0, code NETWORK_ERROR). */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  /** Seconds from the Retry-After header of a 429 or 503, when there is one. */
  readonly retryAfter: number | null;
  /** The request body's field the error is about, when the API names one (a domain's fallback URLs). */
  readonly field: string | null;

  constructor(status: number, code: string, message: string, retryAfter: number | null = null, field: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    this.field = field;
  }
}

const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  json?: unknown;
  body?: Blob;
  contentType?: string;
  signal?: AbortSignal | undefined;
  /** False for the session routes themselves, where a 401 is an answer and not a lost session. */
  signedOutHandler?: boolean;
}

export interface ApiClientOptions {
  /** Called when an API answer says the session is gone. */
  onSignedOut: (code: string) => void;
}

export class ApiClient {
  #csrfToken: string | null = null;
  readonly #onSignedOut: (code: string) => void;

  constructor(options: ApiClientOptions) {
    this.#onSignedOut = options.onSignedOut;
  }

  // Sessions

  async getSession(signal?: AbortSignal): Promise<Session> {
    const session = await this.#request<Session>('/auth/session', { signal, signedOutHandler: false });
    this.#csrfToken = session.csrfToken;
    return session;
  }

  async signIn(key: string): Promise<Session> {
    const session = await this.#request<Session>('/auth/session', { method: 'POST', json: { key }, signedOutHandler: false });
    this.#csrfToken = session.csrfToken;
    return session;
  }

  async signOut(): Promise<void> {
    try {
      await this.#request<void>('/auth/session', { method: 'DELETE', signedOutHandler: false });
    } finally {
      this.#csrfToken = null;
    }
  }

  // Links

  listLinks(query: ListQuery, cursor: string | null, signal?: AbortSignal): Promise<LinkPage> {
    const params = listParams(query);
    params.set('limit', '25');
    if (cursor !== null) params.set('cursor', cursor);
    return this.#request<LinkPage>(`/links?${params}`, { signal });
  }

  getLink(link: LinkKey, signal?: AbortSignal): Promise<Link> {
    return this.#request<Link>(linkPath(link), { signal });
  }

  createLink(link: NewLink): Promise<CreatedLink> {
    return this.#request<CreatedLink>('/links', { method: 'POST', json: link });
  }

  updateLink(link: LinkKey, changes: LinkChanges): Promise<Link> {
    return this.#request<Link>(linkPath(link), { method: 'PATCH', json: changes });
  }

  deleteLink(link: LinkKey): Promise<void> {
    return this.#request<void>(linkPath(link), { method: 'DELETE' });
  }

  getStats(link: LinkKey, query: StatsQuery, signal?: AbortSignal): Promise<Stats> {
    return this.#request<Stats>(linkPath(link, '/stats', statsParams(query)), { signal });
  }

  // Analytics

  getWorkspaceStats(query: StatsQuery, signal?: AbortSignal): Promise<WorkspaceStats> {
    return this.#request<WorkspaceStats>(`/stats?${new URLSearchParams(statsParams(query))}`, { signal });
  }

  async listTags(signal?: AbortSignal): Promise<TagCount[]> {
    const answer = await this.#request<{ tags: TagCount[] }>('/tags', { signal });
    return answer.tags;
  }

  /** Every row on the domain `domain` (a host; null: the default domain). */
  importLinks(file: Blob, format: ImportFormat, domain: string | null): Promise<ImportReport> {
    const params = new URLSearchParams({ format });
    if (domain !== null) params.set('domain', domain);
    return this.#request<ImportReport>(`/links/import?${params}`, { method: 'POST', body: file, contentType: 'text/csv' });
  }

  // Domains

  async listDomains(signal?: AbortSignal): Promise<Domain[]> {
    const answer = await this.#request<{ domains: Domain[] }>('/domains', { signal });
    return answer.domains;
  }

  createDomain(domain: NewDomain): Promise<Domain> {
    return this.#request<Domain>('/domains', { method: 'POST', json: domain });
  }

  updateDomain(host: string, changes: DomainFallbacks): Promise<Domain> {
    return this.#request<Domain>(`/domains/${encodeURIComponent(host)}`, { method: 'PATCH', json: changes });
  }

  /** With links on it, the domain goes only if they are moved: to `moveLinksTo`, another of the workspace's hosts. */
  deleteDomain(host: string, moveLinksTo: string | null): Promise<void> {
    const query = moveLinksTo === null ? '' : `?${new URLSearchParams({ moveLinksTo })}`;
    return this.#request<void>(`/domains/${encodeURIComponent(host)}${query}`, { method: 'DELETE' });
  }

  // Keys

  async listKeys(signal?: AbortSignal): Promise<ApiKey[]> {
    const answer = await this.#request<{ keys: ApiKey[] }>('/keys', { signal });
    return answer.keys;
  }

  createKey(name: string, role: Role): Promise<CreatedKey> {
    return this.#request<CreatedKey>('/keys', { method: 'POST', json: { name, role } });
  }

  revokeKey(id: number): Promise<void> {
    return this.#request<void>(`/keys/${id}`, { method: 'DELETE' });
  }

  // Webhooks

  async listWebhooks(signal?: AbortSignal): Promise<Webhook[]> {
    const answer = await this.#request<{ webhooks: Webhook[] }>('/webhooks', { signal });
    return answer.webhooks;
  }

  createWebhook(fields: WebhookFields): Promise<CreatedWebhook> {
    return this.#request<CreatedWebhook>('/webhooks', { method: 'POST', json: fields });
  }

  updateWebhook(id: number, changes: Partial<WebhookFields>): Promise<Webhook> {
    return this.#request<Webhook>(`/webhooks/${id}`, { method: 'PATCH', json: changes });
  }

  deleteWebhook(id: number): Promise<void> {
    return this.#request<void>(`/webhooks/${id}`, { method: 'DELETE' });
  }

  getWebhookSecret(id: number): Promise<WebhookSecret> {
    return this.#request<WebhookSecret>(`/webhooks/${id}/secret`);
  }

  /** A new secret signs from now on; the old one too, until previousSecretExpiresAt. */
  rotateWebhookSecret(id: number): Promise<WebhookSecret> {
    return this.#request<WebhookSecret>(`/webhooks/${id}/secret`, { method: 'POST' });
  }

  /** One page of an endpoint's delivery log, newest first: of one state (null: all), after the delivery `before`. */
  listDeliveries(id: number, state: DeliveryState | null, before: string | null, signal?: AbortSignal): Promise<DeliveryPage> {
    const params = new URLSearchParams({ limit: '25' });
    if (state !== null) params.set('state', state);
    if (before !== null) params.set('before', before);
    return this.#request<DeliveryPage>(`/webhooks/${id}/deliveries?${params}`, { signal });
  }

  /** The event again, as a new delivery (same webhook-id) due now. */
  resendDelivery(id: number, delivery: number): Promise<Delivery> {
    return this.#request<Delivery>(`/webhooks/${id}/deliveries/${delivery}/resend`, { method: 'POST' });
  }

  async #request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const method = options.method ?? 'GET';
    const headers = new Headers({ accept: 'application/json' });
    let body: NonNullable<RequestInit['body']> | undefined;
    if (options.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(options.json);
    } else if (options.body !== undefined) {
      headers.set('content-type', options.contentType ?? 'application/octet-stream');
      body = options.body;
    }
    if (UNSAFE_METHODS.has(method) && this.#csrfToken !== null) headers.set('x-csrf-token', this.#csrfToken);

    let response: Response;
    try {
      response = await fetch(path, { method, headers, body: body ?? null, credentials: 'same-origin', signal: options.signal ?? null });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiError(0, 'NETWORK_ERROR', 'The service could not be reached. Check your connection and try again.');
    }

    if (response.ok) {
      if (response.status === 204) return undefined as T;
      return (await response.json()) as T;
    }

    const error = await readError(response);
    // The dashboard sends no API key, so any 401 means its session is gone: NOT_SIGNED_IN or SESSION_EXPIRED,
    // or API_KEY_REQUIRED once the browser has dropped an expired cookie and sends none.
    if (error.status === 401 && options.signedOutHandler !== false) {
      this.#csrfToken = null;
      this.#onSignedOut(error.code);
    }
    throw error;
  }
}

/** The list's filters as the API's query parameters (also used for the CSV export link). */
export function listParams(query: ListQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.q !== undefined) params.set('q', query.q);
  if (query.domain !== undefined) params.set('domain', query.domain);
  if (query.tag !== undefined) params.set('tag', query.tag);
  if (query.state !== undefined) params.set('state', query.state);
  if (query.creator !== undefined) params.set('creator', String(query.creator));
  if (query.sort !== undefined) params.set('sort', query.sort);
  return params;
}

function statsParams(query: StatsQuery): Record<string, string> {
  const dimensions = query.dimensions === 'all' ? 'all' : query.dimensions.join(',');
  return { from: query.from, to: query.to, ...(dimensions === '' ? {} : { dimensions }), limit: String(query.limit) };
}

/** The CSV of a period's numbers: of one link, or of the whole workspace when `link` is null. */
export function statsCsvHref(link: LinkKey | null, query: StatsQuery): string {
  return link === null ? `/stats.csv?${new URLSearchParams(statsParams(query))}` : linkPath(link, '/stats.csv', statsParams(query));
}

/**
 * The API's path of one link (and of its `/stats`, `/stats.csv` or `/qr`), with `?domain=` for a link that is not on the
 * default domain: without it, the API reads the code on the default domain.
 */
export function linkPath(link: LinkKey, sub: '' | '/stats' | '/stats.csv' | '/qr' = '', query: Record<string, string> = {}): string {
  const params = new URLSearchParams(query);
  if (link.domain !== null) params.set('domain', link.domain);
  const search = params.toString();
  return `/links/${encodeURIComponent(link.code)}${sub}${search === '' ? '' : `?${search}`}`;
}

export function qrUrl(link: LinkKey, options: { format: 'svg' | 'png'; size: number; margin: number; level: string }): string {
  return linkPath(link, '/qr', {
    format: options.format,
    size: String(options.size),
    margin: String(options.margin),
    level: options.level,
  });
}

/** An error answer as an ApiError; the field it concerns comes from `error.details.field` (or `error.field`). */
export async function readError(response: Response): Promise<ApiError> {
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  try {
    const body = (await response.json()) as {
      error?: { code?: unknown; message?: unknown; field?: unknown; details?: { field?: unknown } };
    };
    const { code, message, field, details } = body.error ?? {};
    const named = details?.field ?? field;
    if (typeof code === 'string' && typeof message === 'string') {
      return new ApiError(response.status, code, message, retryAfter, typeof named === 'string' ? named : null);
    }
  } catch {
    // Not JSON (a proxy's error page, say): fall through to a generic error.
  }
  return new ApiError(
    response.status,
    `HTTP_${response.status}`,
    `The service answered ${response.status} ${response.statusText}.`,
    retryAfter,
  );
}

function parseRetryAfter(value: string | null): number | null {
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
