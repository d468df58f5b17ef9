// Changes and deletions of a workspace's links through the management API, by those allowed to
// (auth/roles.ts: an admin, or the member that created the link), by the same rules as a create;
// each audited as its actor's (audit/audit.ts).

import type { Actor } from '../audit/audit.ts';
import { changeProblem, type Principal } from '../auth/roles.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { scheduleProblem } from '../core/link.ts';
import { AppError } from '../errors.ts';
import type { BlocklistCheck } from './blocklist-refusal.ts';
import { withClicksUsed, type LimitCounts } from './clicks-used.ts';
import { checkChange, withPassword } from './change-rules.ts';
import type { LinkChanges } from './changes.ts';
import type { PatchLinkBody } from './schemas.ts';
import type { LinkDetails } from './store.ts';
import type { WorkspaceLinks } from './workspace-links.ts';

export interface LinkServiceDeps {
  readonly found: WorkspaceLinks;
  readonly changes: LinkChanges;
  /** Where links may point. */
  readonly policy: TargetPolicy;
  /** The destination blocklists (blocklists.ts), asked of a new url after the policy. */
  readonly blocklists: BlocklistCheck;
  /** Hashes a new password (core/link-passwords.ts hashPassword, in a slot: core/hash-slots.ts). */
  readonly hashPassword: (password: string) => Promise<string>;
  /** The redirects counted against links' click limits, shown as clicksUsed. */
  readonly counts: LimitCounts;
}

export class LinkService {
  readonly #deps: LinkServiceDeps;

  constructor(deps: LinkServiceDeps) {
    this.#deps = deps;
  }

  /** The link with `code` on the domain `domainHost` names in `key`'s workspace (workspace-links.ts). */
  async find(key: Principal, domainHost: string | undefined, code: string): Promise<LinkDetails> {
    const [link] = await withClicksUsed([await this.#deps.found.find(key, domainHost, code)], this.#deps.counts);
    return link as LinkDetails;
  }

  /** Changes the link by a PATCH body; 403 for a viewer, or a member that did not create it. Returns its new details. */
  async change(key: Principal, domainHost: string | undefined, code: string, body: PatchLinkBody, actor: Actor): Promise<LinkDetails> {
    const link = await this.#changeable(key, domainHost, code);
    const { change: asked, password } = checkChange(body, this.#deps.policy, Date.now(), this.#deps.blocklists);
    // The start and expiry the link will have, each as asked or as it is.
    const order = scheduleProblem(
      asked.startsAt === undefined ? link.startsAt : asked.startsAt,
      asked.expiresAt === undefined ? link.expiresAt : asked.expiresAt,
    );
    if (order !== undefined) throw new AppError(order, undefined, { field: body.startsAt === undefined ? 'expiresAt' : 'startsAt' });
    const change = await withPassword(asked, password, link, this.#deps.hashPassword);
    const changed = await this.#deps.changes.change(link, change, actor);
    const [shown] = await withClicksUsed(
      [{ ...link, ...changed, ...(change.title === undefined ? {} : { title: change.title }), tags: change.tags ?? link.tags }],
      this.#deps.counts,
    );
    return shown as LinkDetails;
  }

  /** Deletes the link; 403 as for a change. */
  async remove(key: Principal, domainHost: string | undefined, code: string, actor: Actor): Promise<void> {
    await this.#deps.changes.remove(await this.#changeable(key, domainHost, code), true, actor);
  }

  async #changeable(key: Principal, domainHost: string | undefined, code: string): Promise<LinkDetails> {
    const link = await this.#deps.found.find(key, domainHost, code);
    const problem = changeProblem(key, link.ownerKeyId, link.ownerPersonId);
    if (problem !== undefined) throw new AppError(problem);
    return link;
  }
}
