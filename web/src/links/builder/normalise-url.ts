// A target typed the way people type addresses: `example.com/page` is read as https://example.com/page.

/** An address without a scheme: a host with a dot (or localhost), an optional port, then a path, query or nothing. */
const BARE_HOST = /^(?:[\p{L}\p{N}-]+\.)+[\p{L}\p{N}-]{2,}(?::\d{1,5})?(?:[/?#]|$)|^localhost(?::\d{1,5})?(?:[/?#]|$)/iu;

export interface TypedUrl {
  /** What is sent: the text trimmed, with https:// in front when it was assumed. */
  url: string;
  /** https:// was added: the form says so beside the field. */
  assumed: boolean;
}

/** Anything else (another scheme, text that is no address) is left as typed, for the checks to refuse. */
export function normaliseUrl(typed: string): TypedUrl {
  const url = typed.trim();
  if (url.startsWith('//')) return { url: `https:${url}`, assumed: true };
  if (BARE_HOST.test(url)) return { url: `https://${url}`, assumed: true };
  return { url, assumed: false };
}
