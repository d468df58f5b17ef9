// A workspace's link as the API names it: its code on the domain a request names (absent: the
// default), read with its details. Not found, deleted or another workspace's: all are a 404.

import type { Principal } from '../auth/roles.ts';
import { asShortCode } from '../core/codes.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { AppError } from '../errors.ts';
import type { LinkDetails, LinkStore } from './store.ts';

export class WorkspaceLinks {
  readonly #store: Pick<LinkStore, 'details'>;
  readonly #shortUrls: Pick<ShortUrls, 'domainOf'>;

  constructor(store: Pick<LinkStore, 'details'>, shortUrls: Pick<ShortUrls, 'domainOf'>) {
    this.#store = store;
    this.#shortUrls = shortUrls;
  }

  /** The link with `code` on the domain `domainHost` names in `key`'s workspace; 404 DOMAIN_NOT_FOUND or LINK_NOT_FOUND. */
  async find(key: Principal, domainHost: string | undefined, code: string): Promise<LinkDetails> {
    const domain = await this.#shortUrls.domainOf(domainHost, key.workspaceId, 'DOMAIN_NOT_FOUND');
    const shaped = asShortCode(code);
    if (shaped === undefined) throw new AppError('LINK_NOT_FOUND');
    const link = await this.#store.details({ domainId: domain.id, code: shaped });
    if (link === undefined || link.workspaceId !== key.workspaceId) throw new AppError('LINK_NOT_FOUND');
    return link;
  }
}
