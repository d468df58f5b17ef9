// The rules of a change to a link (PATCH /links/:code): the body read by the same rules as a
// create, and the password of its options (true keeps the link's own, a string is hashed).

import { checkExpiresAt, checkStartsAt, checkTags, checkTitle } from '../core/link.ts';
import { checkLinkOptions, withPasswordHash, type LinkOptions } from '../core/link-options.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { checkTargetUrl } from '../core/url-rules.ts';
import { AppError } from '../errors.ts';
import { refuseBlocklisted, type BlocklistCheck } from './blocklist-refusal.ts';
import type { PatchLinkBody } from './schemas.ts';
import type { LinkChange, LinkDetails } from './store.ts';

/**
 * The change with its options' password: `true` keeps the link's own (400 if it has none), a
 * string is hashed by `hash` (scrypt, off the event loop, in a slot: core/hash-slots.ts); without
 * either the options have none.
 */
export async function withPassword(
  change: LinkChange,
  password: string | true | undefined,
  link: LinkDetails,
  hash: (password: string) => Promise<string>,
): Promise<LinkChange> {
  if (password === undefined) return change;
  let stored: string | undefined;
  if (password === true) {
    stored = link.options?.passwordHash;
    if (stored === undefined)
      throw new AppError('PASSWORD_INVALID', 'options.password: true keeps the password a link has; this link has none.', {
        field: 'options.password',
      });
  } else {
    stored = await hash(password);
  }
  return { ...change, options: withPasswordHash(change.options ?? null, stored) };
}

/** A PATCH body as a change, by the same rules as a create (the blocklists too), and the password it asks for. */
export function checkChange(
  body: PatchLinkBody,
  policy: TargetPolicy,
  now: number,
  blocklists: BlocklistCheck,
): { change: LinkChange; password: string | true | undefined } {
  let url: string | undefined;
  if (body.url !== undefined) {
    const verdict = checkTargetUrl(body.url, policy);
    if (!verdict.ok) throw new AppError(verdict.code);
    refuseBlocklisted(verdict.url, undefined, blocklists);
    url = verdict.url;
  }
  let expiresAt: Date | null | undefined;
  if (body.expiresAt === null) expiresAt = null;
  else if (body.expiresAt !== undefined) {
    const at = checkExpiresAt(body.expiresAt, now);
    if (!(at instanceof Date)) throw new AppError(at);
    expiresAt = at;
  }
  let startsAt: Date | null | undefined;
  if (body.startsAt === null) startsAt = null;
  else if (body.startsAt !== undefined) {
    const at = checkStartsAt(body.startsAt, now);
    if (!(at instanceof Date)) throw new AppError(at, undefined, { field: 'startsAt' });
    startsAt = at;
  }
  let title: string | null | undefined;
  if (body.title !== undefined) {
    const checked = checkTitle(body.title);
    if (!checked.ok) throw new AppError(checked.code);
    title = checked.value;
  }
  let tags: string[] | undefined;
  if (body.tags !== undefined) {
    const checked = checkTags(body.tags);
    if (!checked.ok) throw new AppError(checked.code);
    tags = checked.value;
  }
  let options: LinkOptions | null | undefined;
  let password: string | true | undefined;
  if (body.options !== undefined) {
    const checked = checkLinkOptions(body.options, policy, now);
    if (!checked.ok) throw new AppError(checked.code, checked.message, { field: checked.field });
    options = checked.options;
    password = checked.password;
    refuseBlocklisted(undefined, options, blocklists);
  }
  const change = {
    ...(url === undefined ? {} : { url }),
    ...(options === undefined ? {} : { options }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(startsAt === undefined ? {} : { startsAt }),
    ...(body.disabled === undefined ? {} : { disabled: body.disabled }),
    ...(body.archived === undefined ? {} : { archived: body.archived }),
    ...(title === undefined ? {} : { title }),
    ...(tags === undefined ? {} : { tags }),
  };
  return { change, password };
}
