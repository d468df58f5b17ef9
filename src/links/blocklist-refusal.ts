// The one refusal of a target on a destination blocklist, shared by every create (creates.ts) and
// every change (change-rules.ts), whichever route or compatible API they come from.

import type { BlocklistMatch } from '../core/blocklist/match.ts';
import type { LinkOptions } from '../core/link-options.ts';
import { AppError } from '../errors.ts';

/** What the rules ask of the blocklists (blocklists.ts): the entry a normalised target matches, or null. */
export interface BlocklistCheck {
  match(url: string): BlocklistMatch | null;
}

/** Throws 400 URL_BLOCKLISTED, naming the list, if `url` (normalised by url-rules.ts), the body's `field`, is on one. */
export function refuseBlocklisted(url: string, blocklists: BlocklistCheck, field = 'url'): void {
  const found = blocklists.match(url);
  if (found !== null) throw new AppError('URL_BLOCKLISTED', `${field} is on the blocklist "${found.list}".`, { field });
}

/** The same for a link's own expired fallback (options.expiredUrl), which sends visitors as its url does. */
export function refuseBlocklistedOptions(options: LinkOptions | null | undefined, blocklists: BlocklistCheck): void {
  const expiredUrl = options?.expiredUrl;
  if (expiredUrl !== undefined) refuseBlocklisted(expiredUrl, blocklists, 'options.expiredUrl');
}
