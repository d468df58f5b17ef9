// Which short domain a request is for, by its Host: the first step of a redirect. A table from
// host name to domain, read from Postgres at start-up and again every REFRESH_MS (and at once
// after a change made on this instance), so that a domain added or removed on one instance is
// served or refused by every instance within REFRESH_MS. A failed read keeps the table it has.
//
// A domain whose DNS record is not verified (status pending) is in the table by id and host, for
// the API, but not by name: its host serves nothing, and the hot path never asks about its status.
//
// On the hot path a lookup is one Map.get of the Host string as it came: a Host sent in another
// spelling (a port, capitals, a trailing dot) is normalised once and the spelling remembered
// (at most SPELLINGS_MAX of them, so that made-up Hosts cannot grow memory).
//
// Each domain carries the pages its visitors may get (a dead link's, the password form) in its
// workspace's brand, built when the table is read and kept while its host, root and brand stay the
// same; the default domain wears the first workspace's, the operator's.

import type { Logger } from 'pino';
import type { RedirectTarget } from '../cache/link-cache.ts';
import type { Brand } from '../core/brand.ts';
import { DEFAULT_DOMAIN_ID, keyPrefix, LOOPBACK_HOSTS, requestHostName } from '../core/domains.ts';
import type { DomainRecord } from '../core/domains.ts';
import { isServed } from '../core/domain-verification.ts';
import type { HtmlPage } from '../core/html-page.ts';
import { DEFAULT_WORKSPACE_ID } from '../core/link.ts';
import { passwordPage } from '../core/password-page.ts';
import { visitorPages, type VisitorPages } from '../core/visitor-page.ts';

export const REFRESH_MS = 2000;
const SPELLINGS_MAX = 1000;

/** A domain as the redirect path serves it. */
export interface ServedDomain {
  readonly id: number;
  /** Its host name (the default domain's: BASE_URL's). */
  readonly host: string;
  /** null: the default domain, every workspace's. */
  readonly workspaceId: number | null;
  /** The key of its link `code` is prefix + code (core/domains.ts). */
  readonly prefix: string;
  readonly rootRedirect: RedirectTarget | null;
  readonly notFoundRedirect: RedirectTarget | null;
  readonly expiredRedirect: RedirectTarget | null;
  /** Whether requests for it are served: false while its DNS record is not verified (core/domain-verification.ts). */
  readonly served: boolean;
  /** Its workspace's brand; null: none set (the service's own look). */
  readonly brand: Brand | null;
  /** Whether its root (`/`) leads somewhere: its root redirect (the default domain's: ROOT_REDIRECT). */
  readonly rooted: boolean;
  /** What a browser gets for a link of its that does not redirect, by error code (core/visitor-page.ts). */
  readonly pages: VisitorPages;
  /** The form of its password-protected links (core/password-page.ts). */
  readonly passwordPage: HtmlPage;
}

/** What the host table is read from: every domain, and the brand of each workspace that has domains and a brand, by workspace id. */
export interface ServedRows {
  readonly domains: readonly DomainRecord[];
  readonly brands: ReadonlyMap<number, Brand>;
  /** The default domain (its id) of each workspace that chose one of its own (docs/settings.md). */
  readonly workspaceDefaults?: ReadonlyMap<number, number>;
}

/** No workspace has a brand. */
const NO_BRANDS: ReadonlyMap<number, Brand> = new Map();
/** No workspace has a default domain of its own. */
const NO_DEFAULTS: ReadonlyMap<number, number> = new Map();

export interface HostsOptions {
  /** BASE_URL's host name: the default domain's. */
  readonly defaultHost: string;
  /** Other names of the default domain (DEFAULT_DOMAIN_HOSTS); '*' in it: every host no domain has. */
  readonly defaultAliases: readonly string[];
  /** Every domain, and the brands of their workspaces, from Postgres (db/domain-rows.ts readServedDomains). */
  readonly read: () => Promise<ServedRows>;
  /** Whether the default domain's root (ROOT_REDIRECT) leads anywhere: its pages then offer it as the way on. */
  readonly defaultRooted?: boolean;
  /** DOMAIN_VERIFICATION: whether a domain must be verified to be served (false: every domain is, as before verification). */
  readonly verifiedOnly: boolean;
  readonly log: Logger;
}

export class HostTable {
  readonly #options: HostsOptions;
  #default: ServedDomain;
  /** Every name, as normalised, and each spelling of one seen in a request. */
  #byName = new Map<string, ServedDomain>();
  #spellings = new Map<string, ServedDomain>();
  #byId = new Map<number, ServedDomain>();
  #workspaceDefaults: ReadonlyMap<number, number> = NO_DEFAULTS;
  #byHost = new Map<string, ServedDomain>();
  /** Whether the domains have been read once: before that, a host that is no default name is not known to be unserved. */
  #loaded = false;
  readonly #anyHost: boolean;
  /** The Host of the last lookup that found a domain, and that domain: most requests in a row name the same. */
  #lastHost: string | null = null;
  #lastDomain: ServedDomain | undefined = undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Reads begun, and the number of the newest one installed. */
  #reads = 0;
  #installed = 0;
  #stopped = false;

  constructor(options: HostsOptions) {
    this.#options = options;
    this.#anyHost = options.defaultAliases.includes('*');
    this.#default = this.#defaultIn(null, undefined);
    this.#install([], NO_BRANDS, NO_DEFAULTS);
  }

  get defaultDomain(): ServedDomain {
    return this.#default;
  }

  /** Whether the table has been read from Postgres. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /**
   * The domain a request's Host names; undefined when the deployment does not serve that host.
   */
  lookup(host: string | undefined): ServedDomain | undefined {
    // No Host (HTTP/1.0) or an empty one (RFC 9112 3.2: a target without an authority): nothing names another domain.
    if (host === undefined || host === '') return this.#default;
    if (host === this.#lastHost) return this.#lastDomain;
    const domain = this.#spellings.get(host) ?? this.#spelling(host);
    if (domain !== undefined) {
      this.#lastHost = host;
      this.#lastDomain = domain;
    }
    return domain;
  }

  #spelling(host: string): ServedDomain | undefined {
    const domain = this.#byName.get(requestHostName(host)) ?? (this.#anyHost ? this.#default : undefined);
    if (domain !== undefined) {
      if (this.#spellings.size >= SPELLINGS_MAX) this.#spellings.clear();
      this.#spellings.set(host, domain);
    }
    return domain;
  }

  byId(id: number): ServedDomain | undefined {
    return this.#byId.get(id);
  }

  /** The domain a create of `workspaceId` that names none goes on, when the workspace chose one (served or not); else undefined. */
  workspaceDefault(workspaceId: number): ServedDomain | undefined {
    const id = this.#workspaceDefaults.get(workspaceId);
    return id === undefined ? undefined : this.#byId.get(id);
  }

  /**
   * Whether requests for `host` (a stored host name) are served: the default domain's names and every
   * verified domain's, loopback names left out (a link may point at another port of this machine
   * where ALLOW_PRIVATE_TARGETS lets it). What a link may not point at (core/target-policy.ts).
   */
  serves(host: string): boolean {
    return this.#byName.has(host) && !LOOPBACK_HOSTS.includes(host);
  }

  /** A domain by its stored host name (as checkDomainHost gives it), the default's included, served or not. */
  byHost(host: string): ServedDomain | undefined {
    return this.#byHost.get(host);
  }

  /** Reads the domains now, then every REFRESH_MS until stop(). Never rejects. */
  async start(): Promise<void> {
    await this.refresh();
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Reads the domains again; a failure keeps the table as it is. */
  async refresh(): Promise<void> {
    const read = ++this.#reads;
    try {
      const { domains: records, brands, workspaceDefaults = NO_DEFAULTS } = await this.#options.read();
      // A read begun before one already installed (the timer's, overtaken by the one after a change) is older news.
      if (read < this.#installed) return;
      this.#installed = read;
      this.#install(records, brands, workspaceDefaults);
      this.#loaded = true;
    } catch (err) {
      this.#options.log.debug({ err }, 'domains: read failed; serving the domains read before');
    }
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.refresh().then(() => this.#schedule()), REFRESH_MS).unref();
  }

  /** The default domain in `brand`: its root is ROOT_REDIRECT, not a row's (dashboard/plugin.ts). */
  #defaultIn(brand: Brand | null, before: ServedDomain | undefined): ServedDomain {
    const record = { id: DEFAULT_DOMAIN_ID, host: this.#options.defaultHost, workspaceId: null };
    return served(record, brand, before, true, this.#options.defaultRooted === true);
  }

  #install(records: readonly DomainRecord[], brands: ReadonlyMap<number, Brand>, workspaceDefaults: ReadonlyMap<number, number>): void {
    const before = this.#byId;
    this.#default = this.#defaultIn(brands.get(DEFAULT_WORKSPACE_ID) ?? null, this.#default);
    const byName = new Map<string, ServedDomain>();
    const byId = new Map<number, ServedDomain>([[DEFAULT_DOMAIN_ID, this.#default]]);
    const byHost = new Map<string, ServedDomain>([[this.#default.host, this.#default]]);
    for (const name of [...LOOPBACK_HOSTS, ...this.#options.defaultAliases, this.#default.host]) byName.set(name, this.#default);
    for (const record of records) {
      if (record.id === DEFAULT_DOMAIN_ID || record.host === null) continue;
      const brand = record.workspaceId === null ? null : (brands.get(record.workspaceId) ?? null);
      const domain = served(record, brand, before.get(record.id), this.#options.verifiedOnly);
      // Filtered here, once per read, so that a lookup stays one Map.get: an unverified domain's host serves nothing.
      if (domain.served) byName.set(domain.host, domain);
      byId.set(domain.id, domain);
      byHost.set(domain.host, domain);
    }
    this.#byName = byName;
    this.#byId = byId;
    this.#workspaceDefaults = workspaceDefaults;
    this.#byHost = byHost;
    this.#spellings = new Map();
    this.#lastHost = null;
    this.#lastDomain = undefined;
  }
}

type ServedRecord = Pick<DomainRecord, 'id' | 'host' | 'workspaceId'> & Partial<DomainRecord>;

/**
 * `record` as served in `brand`; `rooted`: its root leads somewhere (its pages offer it). Its pages
 * are `before`'s (the same domain, read last time) when nothing they show changed.
 */
function served(
  record: ServedRecord,
  brand: Brand | null,
  before: ServedDomain | undefined,
  verifiedOnly = true,
  rooted = (record.rootRedirect ?? null) !== null,
): ServedDomain {
  const host = record.host ?? '';
  const rootRedirect = (record.rootRedirect ?? null) as RedirectTarget | null;
  const same = before !== undefined && before.host === host && before.brand === brand && before.rooted === rooted;
  return {
    id: record.id,
    host,
    workspaceId: record.workspaceId,
    prefix: keyPrefix(record.id),
    rootRedirect,
    notFoundRedirect: (record.notFoundRedirect ?? null) as RedirectTarget | null,
    expiredRedirect: (record.expiredRedirect ?? null) as RedirectTarget | null,
    served: !verifiedOnly || record.verification === undefined || isServed(record.verification.status),
    brand,
    rooted,
    pages: same ? before.pages : visitorPages({ host, brand, rooted }),
    passwordPage: same ? before.passwordPage : passwordPage(200, undefined, [], { host, brand }),
  };
}
