// The one refusal of a target on a destination blocklist, shared by every create (creates.ts) and
// every change (change-rules.ts), whichever route or compatible API they come from.

import type { BlocklistMatch } from '../core/blocklist/match.ts';
import { linkTargets, type LinkOptions } from '../core/link-options.ts';
import { AppError } from '../errors.ts';

/** What the rules ask of the blocklists (blocklists.ts): the entry a normalised target matches, or null. */
export interface BlocklistCheck {
  match(url: string): BlocklistMatch | null;
}

/**
 * Throws 400 URL_BLOCKLISTED, naming the list and the field, if `url` or a URL of `options` (a rule's,
 * a variant's, an app's web link: core/link-options.ts linkTargets), normalised by url-rules.ts, is on one.
 */
export function refuseBlocklisted(url: string | undefined, options: LinkOptions | null | undefined, blocklists: BlocklistCheck): void {
  const targets = [
    ...(url === undefined ? [] : linkTargets(url, null)),
    ...(options === null || options === undefined ? [] : linkTargets('', options).slice(1)),
  ];
  for (const { field, url: target } of targets) {
    const found = blocklists.match(target);
    if (found !== null) throw new AppError('URL_BLOCKLISTED', `${field} is on the blocklist "${found.list}".`, { field });
  }
}
