// Changes and deletions of links: written through the store (each with its event in the outbox,
// and its audit entry when it has an actor), then told to every tier of the read path before they
// are acknowledged (resolve/propagation.ts).

import type { Link } from '../core/link.ts';
import { AppError } from '../errors.ts';
import type { Propagation } from '../resolve/propagation.ts';
import type { ChangedLink, LinkChange, LinkStore } from './store.ts';
import type { LinkRef } from '../core/link.ts';
import type { Actor } from '../audit/audit.ts';

export class LinkChanges {
  readonly #store: Pick<LinkStore, 'change' | 'remove'>;
  readonly #propagation: Pick<Propagation, 'announce'>;

  constructor(store: Pick<LinkStore, 'change' | 'remove'>, propagation: Pick<Propagation, 'announce'>) {
    this.#store = store;
    this.#propagation = propagation;
  }

  /** Applies `change` to the link `ref` names and returns it; 404 LINK_NOT_FOUND if there is none. Audited as `actor`'s. */
  async change(ref: LinkRef, change: LinkChange, actor: Actor | null = null): Promise<ChangedLink> {
    const link = await this.#store.change(ref, change, actor);
    if (link === undefined) throw new AppError('LINK_NOT_FOUND');
    await this.#propagation.announce([link]);
    return link;
  }

  /**
   * Deletes the link `ref` names (a versioned tombstone, so no older copy can come back); 404
   * LINK_NOT_FOUND if there is none. `announced` false: no `link.deleted` event (nobody was given it).
   * Audited as `actor`'s.
   */
  async remove(ref: LinkRef, announced = true, actor: Actor | null = null): Promise<Link> {
    const link = await this.#store.remove(ref, announced, actor);
    if (link === undefined) throw new AppError('LINK_NOT_FOUND');
    await this.#propagation.announce([link]);
    return link;
  }
}
