// Whether a link's target is on a blocklist: its exact URL, else its host or a parent domain up
// to the registrable one (entries.ts, domainKeys). A few Set lookups a list, whatever its size.

import { domainKeys } from './entries.ts';

/** Entries as parseBlocklist writes them. A Set is used as it is, not copied: refreshing one list rebuilds one set. */
export interface Entries {
  readonly domains: Iterable<string>;
  readonly urls: Iterable<string>;
}

export interface NamedList extends Entries {
  readonly name: string;
}

export interface BlocklistMatch {
  /** The name of the first list, in the order given, that holds the entry. */
  readonly list: string;
  /** The URL or domain of that list that matched. */
  readonly entry: string;
  readonly kind: 'url' | 'domain';
}

interface ListSets {
  readonly name: string;
  readonly domains: ReadonlySet<string>;
  readonly urls: ReadonlySet<string>;
}

const NOTHING: Entries = { domains: new Set(), urls: new Set() };

export class BlocklistMatcher {
  readonly #lists: readonly ListSets[];
  readonly #allowed: ListSets;

  /** `allow`: domains (with their subdomains) and URLs never matched, whatever a list says. */
  constructor(lists: readonly NamedList[], allow: Entries = NOTHING) {
    this.#lists = lists.map(setsOf);
    this.#allowed = setsOf({ name: 'allow', ...allow });
  }

  /** The entry `url` matches, or null: an exact URL first, then its host and parent domains. */
  match(url: string): BlocklistMatch | null {
    // No list configured (the default): a create pays no URL parse for it.
    if (this.#lists.length === 0) return null;
    const parsed = URL.parse(url);
    if (parsed === null) return null;
    const href = parsed.href;
    const keys = domainKeys(parsed.hostname);
    if (this.#allowed.urls.has(href) || keys.some((key) => this.#allowed.domains.has(key))) return null;
    for (const list of this.#lists) {
      if (list.urls.has(href)) return { list: list.name, entry: href, kind: 'url' };
    }
    for (const list of this.#lists) {
      const entry = keys.find((key) => list.domains.has(key));
      if (entry !== undefined) return { list: list.name, entry, kind: 'domain' };
    }
    return null;
  }
}

function setsOf(list: NamedList): ListSets {
  return { name: list.name, domains: asSet(list.domains), urls: asSet(list.urls) };
}

function asSet(entries: Iterable<string>): ReadonlySet<string> {
  return entries instanceof Set ? entries : new Set(entries);
}
