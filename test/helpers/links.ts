// A link as a lookup hands it to the cache, for tests that fill or judge cache entries directly.

import type { ShortCode } from '../../src/core/codes.ts';
import type { Link } from '../../src/core/link.ts';

/** A live link on the default domain, without options; `extra` changes any of it. */
export function plainLink(code: string, url = `https://example.com/${code}`, extra: Partial<Link> = {}): Link {
  return {
    domainId: 0,
    code: code as ShortCode,
    url,
    expiresAt: null,
    startsAt: null,
    disabled: false,
    safety: null,
    safetyList: null,
    deleted: false,
    version: 0,
    options: null,
    ...extra,
  };
}
