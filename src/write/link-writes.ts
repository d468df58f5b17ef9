// What the group-commit queue writes through (write-queue.ts QueueStore): generated codes from the
// id blocks (none past the code space: CODES_EXHAUSTED), a batch's INSERT through the breaker,
// and, once committed, the code space and every cache told of the links before they are
// acknowledged. Links a batch wrote whose Idempotency-Key another create took are deleted again.

import type { CodeCodec, ShortCode } from '../core/codes.ts';
import { keyOf } from '../core/domains.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { deleteLink, insertLinks, type Inserted, type NewLink } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { Propagation } from '../resolve/propagation.ts';
import type { IdAllocator } from './id-allocator.ts';
import type { QueueStore } from './write-queue.ts';

export interface LinkWritesDeps {
  readonly db: Queryable;
  readonly breaker: DbBreaker;
  readonly ids: IdAllocator;
  readonly codec: CodeCodec;
  readonly codeSpace: Pick<CodeSpace, 'added' | 'ackDelayMs'>;
  readonly propagation: Pick<Propagation, 'announce'>;
}

export class LinkWrites implements QueueStore {
  readonly #deps: LinkWritesDeps;

  constructor(deps: LinkWritesDeps) {
    this.#deps = deps;
  }

  insert(links: NewLink[]): Promise<Inserted> {
    const { breaker, db } = this.#deps;
    return breaker.run(() => insertLinks(db, links));
  }

  /** `count` generated codes; CODES_EXHAUSTED once the ids pass what codes of CODE_LENGTH can say. */
  async allocate(count: number): Promise<ShortCode[]> {
    const { ids, codec } = this.#deps;
    const taken = await ids.take(count);
    return taken.map((id): ShortCode => {
      if (id >= codec.size) throw new AppError('CODES_EXHAUSTED');
      return codec.fromId(id);
    });
  }

  available(): boolean {
    return this.#deps.breaker.state !== 'open';
  }

  async committed(links: NewLink[]): Promise<void> {
    for (const link of links) if (!link.generated) this.#deps.codeSpace.added(keyOf(link));
    await this.#deps.propagation.announce(links);
  }

  ackDelayMs(alias: string): number {
    return this.#deps.codeSpace.ackDelayMs(alias);
  }

  async discard(written: NewLink[]): Promise<void> {
    const { breaker, db, propagation } = this.#deps;
    await Promise.all(
      written.map(async (link) => {
        const gone = await breaker.run(() => deleteLink(db, link, false));
        if (gone === undefined) throw new AppError('LINK_NOT_FOUND');
        await propagation.announce([gone]);
      }),
    );
  }
}
