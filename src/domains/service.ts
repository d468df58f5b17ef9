// The rules of short domains, between the routes and the store: a host is normalised and never the
// deployment's own; fallbacks are checked as link targets; what the redirect path serves follows at
// once on this instance (resolve/hosts.ts refresh) and within REFRESH_MS on the others. A domain is
// removed only when no live link is on it, or with its links moved to another of the workspace's
// domains: the links moved are announced to Redis and every instance like any change, under their
// new keys, and their old keys as deleted. Each change is audited as its actor's (audit/audit.ts),
// with the change.

import { checkDomainHost, keyOf, LOOPBACK_HOSTS, splitKey } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { checkTargetUrl } from '../core/url-rules.ts';
import { AppError, ERRORS } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { HostTable } from '../resolve/hosts.ts';
import type { Propagation } from '../resolve/propagation.ts';
import type { ShortUrls } from './short-urls.ts';
import type { DomainVerifier } from './verifier.ts';
import type { CountedDomain, DomainStore } from './store.ts';
import type { DomainFallbacks, DomainRecord } from '../core/domains.ts';
import type { Actor } from '../audit/audit.ts';

export interface DomainServiceDeps {
  readonly store: DomainStore;
  readonly hosts: Pick<HostTable, 'refresh' | 'defaultDomain'>;
  readonly shortUrls: Pick<ShortUrls, 'servedDomainOf'>;
  readonly propagation: Pick<Propagation, 'announce'>;
  readonly codeSpace: Pick<CodeSpace, 'added' | 'ackDelayMs'>;
  /** Where fallbacks may point: the rules of a link's target. */
  readonly policy: TargetPolicy;
  /** The deployment's own names besides BASE_URL's and loopback (DEFAULT_DOMAIN_HOSTS): never a workspace's. */
  readonly reservedHosts: readonly string[];
  readonly verification: DomainVerifier;
}

const FALLBACKS = ['rootRedirect', 'notFoundRedirect', 'expiredRedirect'] as const;
export type FallbacksIn = Partial<Record<(typeof FALLBACKS)[number], string | null>>;

/** The version a removed domain's links are announced with: newer than any copy of them. */
const TOMBSTONE_VERSION = 2 ** 31 - 1;

export class DomainService {
  readonly #deps: DomainServiceDeps;

  constructor(deps: DomainServiceDeps) {
    this.#deps = deps;
  }

  /** The host of the default domain (BASE_URL's). */
  get defaultHost(): string {
    return this.#deps.hosts.defaultDomain.host;
  }

  list(workspaceId: number): Promise<CountedDomain[]> {
    return this.#deps.store.list(workspaceId);
  }

  /** Adds a domain: 400 DOMAIN_INVALID for a host that is none, 409 DOMAIN_TAKEN for the deployment's own or one taken. */
  async add(workspaceId: number, rawHost: string, fallbacksIn: FallbacksIn, actor: Actor): Promise<DomainRecord> {
    const checked = checkDomainHost(rawHost);
    if (!checked.ok) throw new AppError('DOMAIN_INVALID', checked.message, { field: 'host' });
    const { host } = checked;
    if (host === this.defaultHost || LOOPBACK_HOSTS.includes(host) || this.#deps.reservedHosts.includes(host)) {
      throw new AppError('DOMAIN_TAKEN', "This host is one of the default domain's (BASE_URL, DEFAULT_DOMAIN_HOSTS).", { field: 'host' });
    }
    const fallbacks = this.#checkFallbacks(fallbacksIn);
    const fallbackValues = {
      rootRedirect: fallbacks.rootRedirect ?? null,
      notFoundRedirect: fallbacks.notFoundRedirect ?? null,
      expiredRedirect: fallbacks.expiredRedirect ?? null,
    };
    const added = await this.#deps.store.add(workspaceId, host, fallbackValues, this.#deps.verification.newDomain(), actor);
    if (added.outcome === 'pending-elsewhere') throw new AppError('DOMAIN_CLAIM_PENDING', undefined, { field: 'host' });
    if (added.outcome === 'taken') throw new AppError('DOMAIN_TAKEN', undefined, { field: 'host' });
    await this.#deps.hosts.refresh();
    return added.domain;
  }

  /**
   * Looks the domain's TXT record up now: the domain verified (and served on every instance within
   * 2 seconds), 409 DOMAIN_VERIFICATION_FAILED naming what was found, or 503 DOMAIN_DNS_UNAVAILABLE.
   */
  async verify(workspaceId: number, rawHost: string, actor: Actor): Promise<DomainRecord> {
    const checked = await this.#deps.verification.checkNow(workspaceId, this.#ownHost(rawHost), actor);
    if (checked.outcome === 'unanswered') throw new AppError('DOMAIN_DNS_UNAVAILABLE', `Looking the record up, ${checked.seen}.`);
    // Served or not from now on, on this instance at once (a failed check may end a verified domain's grace).
    await this.#deps.hosts.refresh();
    if (checked.outcome === 'absent') {
      throw new AppError('DOMAIN_VERIFICATION_FAILED', `Found ${checked.seen}; publish the TXT record GET /domains shows.`);
    }
    return checked.domain;
  }

  /** Changes a domain's fallbacks (left out: kept; null: removed). */
  async change(workspaceId: number, rawHost: string, fallbacksIn: FallbacksIn, actor: Actor): Promise<CountedDomain> {
    const host = this.#ownHost(rawHost);
    const changed = await this.#deps.store.change(workspaceId, host, this.#checkFallbacks(fallbacksIn), actor);
    if (changed === undefined) throw new AppError('DOMAIN_NOT_FOUND');
    await this.#deps.hosts.refresh();
    return changed;
  }

  /**
   * Removes a domain, its live links moved to the domain `moveLinksTo` names (default: refused
   * while it has any); answered once no instance can still take a moved alias for an impossible code.
   */
  async remove(workspaceId: number, rawHost: string, moveLinksTo: string | undefined, actor: Actor): Promise<void> {
    const { store, shortUrls, codeSpace, propagation, hosts } = this.#deps;
    const host = this.#ownHost(rawHost);
    const target = moveLinksTo === undefined ? null : await shortUrls.servedDomainOf(moveLinksTo, workspaceId, 'DOMAIN_NOT_FOUND');
    if (target !== null && target.host === host) throw new AppError('DOMAIN_MOVE_CONFLICT', 'moveLinksTo names the domain being removed.');
    const removal = await store.remove(workspaceId, host, target === null ? null : { id: target.id, host: target.host }, actor);
    if (removal.outcome === 'not-found') throw new AppError('DOMAIN_NOT_FOUND');
    if (removal.outcome === 'in-use') throw new AppError('DOMAIN_IN_USE');
    if (removal.outcome === 'conflict') {
      throw new AppError('DOMAIN_MOVE_CONFLICT', `These aliases exist on ${moveLinksTo ?? ''} already: ${removal.codes.join(', ')}.`);
    }
    // Old keys as deleted (a tombstone one version newer than any copy), new keys as the links.
    const gone: Link[] = removal.left.map((left) => ({
      ...splitKey(left),
      url: 'https://removed.invalid/',
      expiresAt: null,
      startsAt: null,
      disabled: false,
      safety: null,
      safetyList: null,
      deleted: true,
      version: TOMBSTONE_VERSION,
      options: null,
    }));
    for (const link of removal.moved) codeSpace.added(keyOf(link));
    await propagation.announce([...removal.moved, ...gone]);
    await hosts.refresh();
    // As a create of an alias waits (resolve/code-space.ts).
    const wait = Math.max(0, ...removal.moved.map((link) => codeSpace.ackDelayMs(link.code)));
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** A stored host name from a route parameter: 404 if it cannot be one, 400 DOMAIN_DEFAULT for the default domain. */
  #ownHost(raw: string): string {
    const checked = checkDomainHost(raw);
    if (!checked.ok) throw new AppError('DOMAIN_NOT_FOUND');
    if (checked.host === this.defaultHost) throw new AppError('DOMAIN_DEFAULT');
    return checked.host;
  }

  /** The fallbacks given, checked as link targets (400 with the field named); left out: not given. */
  #checkFallbacks(body: FallbacksIn): Partial<DomainFallbacks> {
    const checked: FallbacksIn = {};
    for (const field of FALLBACKS) {
      const value = body[field];
      if (value === undefined) continue;
      if (value === null || value.trim() === '') {
        checked[field] = null;
        continue;
      }
      const verdict = checkTargetUrl(value, this.#deps.policy);
      if (!verdict.ok) throw new AppError(verdict.code, ERRORS[verdict.code].message.replace(/^url\b/, field), { field });
      checked[field] = verdict.url;
    }
    return checked;
  }
}
