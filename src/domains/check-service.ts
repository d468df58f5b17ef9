// A domain's DNS and TLS check on demand (check.ts), for the workspace's domains alone: the default
// domain (BASE_URL's host) or one of its own, pending ones included (that is when it helps most).

import { checkDomainHost } from '../core/domains.ts';
import type { DomainRecord } from '../core/domains.ts';
import { AppError } from '../errors.ts';
import type { DomainCheck, DomainChecker } from './check.ts';

export interface DomainCheckDeps {
  readonly checker: Pick<DomainChecker, 'check'>;
  /** The workspace's own domain `host`, or undefined (verification-store.ts). */
  find(workspaceId: number, host: string): Promise<DomainRecord | undefined>;
  readonly defaultHost: () => string;
}

export class DomainCheckService {
  readonly #deps: DomainCheckDeps;

  constructor(deps: DomainCheckDeps) {
    this.#deps = deps;
  }

  /** Checks the workspace's domain `rawHost` now; 404 DOMAIN_NOT_FOUND if it has none. */
  async check(workspaceId: number, rawHost: string): Promise<DomainCheck> {
    const checked = checkDomainHost(rawHost);
    if (!checked.ok) throw new AppError('DOMAIN_NOT_FOUND');
    const { host } = checked;
    if (host !== this.#deps.defaultHost() && (await this.#deps.find(workspaceId, host)) === undefined) {
      throw new AppError('DOMAIN_NOT_FOUND');
    }
    return this.#deps.checker.check(host);
  }
}
