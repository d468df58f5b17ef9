// Reading a blocklist in the formats operators get (plain domains, hosts files, Adblock-style
// `||domain^`, URL feeds such as URLhaus' and OpenPhish's, PhishTank's CSV) into domains and URLs
// a matcher compares (match.ts). A bad line is counted, with a few examples, and never fatal.
// The text comes in whole: fetching it and bounding its bytes are the loader's.

import { normaliseListDomain, normaliseListUrl } from './entries.ts';
import {
  isHostsAddress,
  phishtankReader,
  readAdblockLine,
  readDomainLine,
  readHostsLine,
  readUrlLine,
  type EntrySink,
  type LineReader,
} from './formats.ts';

export const LIST_FORMATS = ['domains', 'hosts', 'adblock', 'urls', 'phishtank-csv'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];
/** `auto`: detectFormat decides. */
export type BlocklistFormat = ListFormat | 'auto';

export interface MalformedLine {
  /** From 1. */
  readonly line: number;
  /** The line, cut to 200 characters. */
  readonly text: string;
  readonly why: string;
}

export interface ParsedList {
  /** The format read: the one asked for, or the one detected for `auto`. */
  readonly format: ListFormat;
  /** Each once: lower case, punycode, no trailing dot; or an IP address as a URL's host writes it. */
  readonly domains: string[];
  /** Each once, normalised as a link's target is. */
  readonly urls: string[];
  /** Blank lines, comments, headers, rules that block no whole domain, a hosts file's own names, URLs no link can hold. */
  readonly skipped: number;
  readonly malformed: { readonly count: number; readonly examples: MalformedLine[] };
}

/** Past this many different entries a list is refused whole (BlocklistTooLargeError). */
export const MAX_LIST_ENTRIES = 2_000_000;
/** A longer line is malformed: no URL the service accepts is longer (URL_MAX_LENGTH). */
export const MAX_LINE_LENGTH = 2048;
const MAX_EXAMPLES = 5;
const EXAMPLE_LENGTH = 200;

/**
 * Thrown rather than a truncated result: a list that large is most likely the wrong file (a whole
 * database dump for a feed), and a truncated one would block part of what it names without a word.
 * The loader keeps the list's previous version and reports this.
 */
export class BlocklistTooLargeError extends Error {
  override name = 'BlocklistTooLargeError';
  readonly limit: number;

  constructor(limit: number) {
    super(`the list has more than ${limit} entries, the most a list may have`);
    this.limit = limit;
  }
}

/** The domains and URLs `text` blocks; throws BlocklistTooLargeError past `maxEntries` different entries. */
export function parseBlocklist(text: string, format: BlocklistFormat, maxEntries: number = MAX_LIST_ENTRIES): ParsedList {
  const listFormat = format === 'auto' ? detectFormat(text) : format;
  const read = READERS[listFormat]();
  const list = new ListBuilder(maxEntries);
  forEachLine(text, (line, number) => {
    list.at(number, line);
    if (line.length > MAX_LINE_LENGTH) list.malformed(`longer than ${MAX_LINE_LENGTH} characters`);
    else read(line, list);
  });
  return list.result(listFormat);
}

// A fresh reader for each list: PhishTank's remembers which column its header names `url`.
const READERS: Record<ListFormat, () => LineReader> = {
  domains: () => readDomainLine,
  hosts: () => readHostsLine,
  adblock: () => readAdblockLine,
  urls: () => readUrlLine,
  'phishtank-csv': phishtankReader,
};

/** Each line of `text` (LF or CRLF, a BOM ignored) with its number, without building an array of them all. */
function forEachLine(text: string, read: (line: string, number: number) => void): void {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (let number = 1; start < text.length; number++) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    read(text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end), number);
    start = end + 1;
  }
}

/** Counts what the readers find, keeps each entry once and the first few malformed lines. */
class ListBuilder implements EntrySink {
  readonly #domains = new Set<string>();
  readonly #urls = new Set<string>();
  readonly #examples: MalformedLine[] = [];
  readonly #maxEntries: number;
  #skipped = 0;
  #malformed = 0;
  #line = 0;
  #text = '';

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  at(line: number, text: string): void {
    this.#line = line;
    this.#text = text;
  }

  domain(raw: string): void {
    const verdict = normaliseListDomain(raw);
    if ('entry' in verdict) this.#add(this.#domains, verdict.entry);
    else this.malformed(verdict.malformed);
  }

  url(raw: string): void {
    const verdict = normaliseListUrl(raw);
    if ('entry' in verdict) this.#add(this.#urls, verdict.entry);
    else if ('irrelevant' in verdict) this.skip();
    else this.malformed(verdict.malformed);
  }

  skip(): void {
    this.#skipped += 1;
  }

  malformed(why: string): void {
    this.#malformed += 1;
    if (this.#examples.length < MAX_EXAMPLES) {
      const text = this.#text.length > EXAMPLE_LENGTH ? `${this.#text.slice(0, EXAMPLE_LENGTH)}…` : this.#text;
      this.#examples.push({ line: this.#line, text, why });
    }
  }

  #add(entries: Set<string>, entry: string): void {
    entries.add(entry);
    if (this.#domains.size + this.#urls.size > this.#maxEntries) throw new BlocklistTooLargeError(this.#maxEntries);
  }

  result(format: ListFormat): ParsedList {
    return {
      format,
      domains: [...this.#domains],
      urls: [...this.#urls],
      skipped: this.#skipped,
      malformed: { count: this.#malformed, examples: this.#examples },
    };
  }
}

const DETECT_LINES = 100;
const DETECT_CHARACTERS = 64 * 1024;
const PHISHTANK_HEADER = /^phish_id,/i;
type LineShape = 'adblock' | 'hosts' | 'urls' | 'domains';
/** On a tie the more specific shape wins: an Adblock rule or a hosts line is never a plain domain. */
const SHAPES: readonly LineShape[] = ['adblock', 'hosts', 'urls', 'domains'];

/**
 * The format `text` is in: PhishTank's CSV if its first line starts `phish_id,`; otherwise each
 * of the first 100 lines that is neither blank nor a `#` comment votes for the format it looks
 * like, and the most votes win (nothing to vote on: domains). A line looks like Adblock's if it
 * starts with `!`, `[`, `|` or `@@` or holds `##`; like a URL feed's if it starts with a scheme
 * and `://`; like a hosts file's if it is an address followed by a name; else like a domain.
 */
export function detectFormat(text: string): ListFormat {
  const votes: Record<LineShape, number> = { adblock: 0, hosts: 0, urls: 0, domains: 0 };
  let voters = 0;
  for (const raw of text.slice(0, DETECT_CHARACTERS).split('\n')) {
    const line = raw.trim();
    if (line === '' || isComment(line)) continue;
    if (voters === 0 && PHISHTANK_HEADER.test(line)) return 'phishtank-csv';
    votes[shapeOf(line)] += 1;
    if (++voters === DETECT_LINES) break;
  }
  if (voters === 0) return 'domains';
  return SHAPES.reduce((best, shape) => (votes[shape] > votes[best] ? shape : best));
}

/** `# a comment`, or a rule of `#`s as around URLhaus' header; `##.ad` and `###ad` are Adblock's element rules. */
function isComment(line: string): boolean {
  return line.startsWith('#') && (!line.startsWith('##') || /^#+$/.test(line));
}

function shapeOf(line: string): LineShape {
  if (/^(?:!|\[|\||@@)/.test(line) || /#[@$?]?#/.test(line)) return 'adblock';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(line)) return 'urls';
  const [first = '', second] = line.split(/\s+/, 2);
  if (second !== undefined && isHostsAddress(first)) return 'hosts';
  return 'domains';
}
