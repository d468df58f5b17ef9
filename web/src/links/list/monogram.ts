// A link's "favicon" without fetching one: letters and a colour derived from the target's host, so
// that the list sends no request to the internet or to the target site (no tracking, no CSP hole,
// nothing slow), and a link to the same site always looks the same.

/** How many colours the list's stylesheet has for monograms (.monogram-0 … .monogram-7). */
export const MONOGRAM_COLOURS = 8;

export interface Monogram {
  /** One or two capital letters. */
  letters: string;
  /** Its colour's number, 0 to MONOGRAM_COLOURS - 1. */
  colour: number;
  host: string;
}

/** The host of `url` without "www.", or '' for a URL that does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** The monogram of a target URL: the first letters of its host's name (before the public suffix) and a colour from a hash of it. */
export function monogramOf(url: string): Monogram {
  const host = hostOf(url);
  const labels = host.split('.').filter((label) => label !== '');
  // "shop.example.co.uk" -> "example"; "example.com" -> "example"; an address -> its first number.
  const second = labels.at(-2);
  // An address (IPv4 or IPv6) has no name: its first part stands for it.
  const address = /^[\d.]+$/.test(host) || host.includes(':');
  const name =
    (address ? labels[0] : labels.length > 2 && second !== undefined && second.length <= 3 ? labels.at(-3) : (second ?? labels[0])) ?? '';
  // An international name comes punycoded ("xn--bcher-kva"): its ASCII letters stand for it.
  const letters = (
    name
      .replace(/^xn--/, '')
      .replace(/[^\p{L}\p{N}]/gu, '')
      .match(/^.{1,2}/u)?.[0] ?? '?'
  ).toUpperCase();
  let hash = 0;
  for (const char of host) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) | 0;
  return { letters, colour: Math.abs(hash) % MONOGRAM_COLOURS, host };
}
