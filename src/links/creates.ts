// A create as every route makes it (POST /links, its bulk, the CSV import): the link rules, then
// the write queue, and with an Idempotency-Key the original answer to a retry. Answered only once
// the link's batch has committed.

import { checkLinkRequest, type CreateLinkBody, type Link, type LinkRequest } from '../core/link.ts';
import { withPasswordHash } from '../core/link-options.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { AppError, isAppError } from '../errors.ts';
import { IdempotencyKeyTaken, type CreateOptions, type WriteQueue } from '../write/write-queue.ts';
import { refuseBlocklisted, refuseBlocklistedOptions, type BlocklistCheck } from './blocklist-refusal.ts';
import type { IdempotencyRecord, LinkStore } from './store.ts';
import { type IdempotencyKey } from '../core/link.ts';

/**
 * What a create without an API key may not ask for (CREATE_REQUIRES_API_KEY=false): a domain, whose
 * owner vouches for its links, and options (a password, a preview, a status, rules, a click limit,
 * app links), which make a plain-looking short link do more than redirect. 403, naming the field.
 */
function refuseAnonymousExtras(body: CreateLinkBody): void {
  if (body.domain !== undefined) throw limited('domain', 'links go on a short domain other than the default');
  const options = body.options ?? {};
  const asked = Object.entries(options).find(([, value]) => value !== undefined && value !== null)?.[0];
  if (asked !== undefined) throw limited(`options.${asked}`, 'a link takes options');
}

function limited(field: string, what: string): AppError {
  return new AppError('ANONYMOUS_CREATE_LIMITED', `${field}: ${what} only with an API key; a link created without one is a plain link.`, {
    field,
  });
}

/** A committed link, with the title and tags it was created with. */
export type CreatedLinkState = Link & Pick<LinkRequest, 'title' | 'tags'>;

export interface Created {
  readonly link: CreatedLinkState;
  /** The answer of an earlier create with the same Idempotency-Key: nothing was created now. */
  readonly replayed: boolean;
}

/** Who creates, in which workspace. */
export type Creator = Pick<CreateOptions, 'workspaceId' | 'ownerKeyId' | 'share'>;

export interface CreatesDeps {
  queue: WriteQueue;
  store: Pick<LinkStore, 'idempotencyKey' | 'details'>;
  /** Where links may point. */
  policy: TargetPolicy;
  /** The destination blocklists (blocklists.ts), asked after the policy. */
  blocklists: BlocklistCheck;
  /** Hashes a new password (core/link-passwords.ts hashPassword, in a slot: core/hash-slots.ts). */
  hashPassword(password: string): Promise<string>;
  /** The id of the domain a create names by host (absent: the default) for a workspace; rejects with DOMAIN_UNKNOWN. */
  domainOf(host: string | undefined, workspaceId: number): Promise<number>;
}

export class LinkCreates {
  readonly #deps: CreatesDeps;
  /** Creates in flight on this instance, by Idempotency-Key: a concurrent retry waits for the first. */
  readonly #inFlightKeys = new Map<string, Promise<Created>>();

  constructor(deps: CreatesDeps) {
    this.#deps = deps;
  }

  /**
   * Creates one link by the rules of a create; rejects with an AppError (400, 409, 422, 503).
   * `seen`: what the caller has just read of `key` (one lookup for a whole file): its record, or
   * null when it was never used; it is not looked up again before the create.
   */
  async create(body: CreateLinkBody, creator: Creator, key: IdempotencyKey | undefined, seen?: IdempotencyRecord | null): Promise<Created> {
    if (creator.ownerKeyId === null) refuseAnonymousExtras(body);
    const domainId = await this.#deps.domainOf(body.domain, creator.workspaceId);
    const verdict = checkLinkRequest(body, this.#deps.policy, Date.now(), domainId);
    if (!verdict.ok) throw new AppError(verdict.code, verdict.message, verdict.field === undefined ? undefined : { field: verdict.field });
    let request = verdict.request;
    refuseBlocklisted(request.url, this.#deps.blocklists);
    refuseBlocklistedOptions(request.options, this.#deps.blocklists);
    if (verdict.password === true)
      throw new AppError('PASSWORD_INVALID', 'options.password: true keeps the password a link has; a new link has none.', {
        field: 'options.password',
      });
    // Hashed in libuv's pool (scrypt), before the link joins the write queue.
    if (verdict.password !== undefined)
      request = { ...request, options: withPasswordHash(request.options, await this.#deps.hashPassword(verdict.password)) };
    if (key === undefined) {
      const link = await this.#deps.queue.enqueue(request, { ...creator, idempotency: undefined });
      return { link: withFields(link, request), replayed: false };
    }
    // One attempt per key at a time on this instance: wait for the one in flight, then take the
    // slot before the next await, so that a concurrent retry waits for this one in turn.
    const slot = `${key.scope}:${key.key}`;
    let waited = false;
    for (let running = this.#inFlightKeys.get(slot); running !== undefined; running = this.#inFlightKeys.get(slot)) {
      waited = true;
      await running.catch(() => {});
    }
    // What the caller saw of the key is stale once another attempt with it has run.
    const attempt = this.#createWithKey(request, creator, key, waited ? undefined : seen);
    this.#inFlightKeys.set(slot, attempt);
    try {
      return await attempt;
    } finally {
      if (this.#inFlightKeys.get(slot) === attempt) this.#inFlightKeys.delete(slot);
    }
  }

  /**
   * The original answer of the create that first used `key` (`seen`, or looked up); 422 if it came
   * with another body.
   */
  async #replay(key: IdempotencyKey, seen?: IdempotencyRecord): Promise<CreatedLinkState | undefined> {
    const { store } = this.#deps;
    const first = seen ?? (await store.idempotencyKey(key.scope, key.key));
    if (first === undefined) return undefined;
    if (!first.requestHash.equals(key.requestHash)) throw new AppError('IDEMPOTENCY_KEY_REUSED');
    const link = await store.details(first.link);
    if (link === undefined) throw new AppError('LINK_NOT_FOUND', 'The link this Idempotency-Key created has been deleted.');
    return link;
  }

  /** A create with an Idempotency-Key: the original answer if the key was used, else a create that stores the key. */
  async #createWithKey(
    request: LinkRequest,
    creator: Creator,
    key: IdempotencyKey,
    seen: IdempotencyRecord | null | undefined,
  ): Promise<Created> {
    const earlier = seen === null ? undefined : await this.#replay(key, seen);
    if (earlier !== undefined) return { link: earlier, replayed: true };
    try {
      return { link: withFields(await this.#deps.queue.enqueue(request, { ...creator, idempotency: key }), request), replayed: false };
    } catch (err) {
      // Another instance committed a create with this key first (its alias too, if there is one):
      // its answer is the answer.
      const lost = err instanceof IdempotencyKeyTaken || (isAppError(err) && err.code === 'ALIAS_TAKEN');
      if (!lost) throw err;
      const first = await this.#replay(key);
      if (first !== undefined) return { link: first, replayed: true };
      if (err instanceof IdempotencyKeyTaken) throw new AppError('DATABASE_UNAVAILABLE', undefined, { cause: err });
      throw err;
    }
  }
}

/** A link the queue committed, with the title and tags of the request that made it. */
function withFields(link: Link, request: LinkRequest): CreatedLinkState {
  return { ...link, title: request.title, tags: request.tags };
}
