// How each list format's lines name what they block. A reader sees one line at a time and tells
// a sink what the line holds; it never throws, so one bad line costs that line alone.

/** Where a reader puts what a line holds (parse.ts normalises and counts). */
export interface EntrySink {
  domain(raw: string): void;
  url(raw: string): void;
  /** A comment, a blank line, a header, or a rule that is no whole-domain block. */
  skip(): void;
  malformed(why: string): void;
}

export type LineReader = (line: string, sink: EntrySink) => void;

/** Text before a `#` comment (no domain or hosts entry holds a `#`), without surrounding spaces. */
function beforeComment(line: string): string {
  const hash = line.indexOf('#');
  return (hash === -1 ? line : line.slice(0, hash)).trim();
}

/** `evil.example`, `*.evil.example` (the same: subdomains are always included), `# comments`. */
export function readDomainLine(line: string, sink: EntrySink): void {
  const text = beforeComment(line);
  if (text === '') return sink.skip();
  if (/\s/.test(text)) return sink.malformed('more than one word: is it a hosts file?');
  sink.domain(text.startsWith('*.') ? text.slice(2) : text);
}

// A hosts file's own entries for the machine (StevenBlack's header lists them): never a block.
const MACHINE_NAMES = /^(?:localhost|localhost\.localdomain|local|broadcasthost|0\.0\.0\.0|ip6-.*)$/i;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
// IPv6, a zone allowed (`fe80::1%lo0`): only its shape matters, the address itself is ignored.
const IPV6 = /^[0-9a-f:.]*:[0-9a-f:.]*(?:%\S+)?$/i;

/** Whether `token` is shaped like the address a hosts line starts with. */
export function isHostsAddress(token: string): boolean {
  return IPV4.test(token) || IPV6.test(token);
}

/** `0.0.0.0 evil.example`, `127.0.0.1 a.example b.example # comment`: every name after the address. */
export function readHostsLine(line: string, sink: EntrySink): void {
  const text = beforeComment(line);
  if (text === '') return sink.skip();
  const [address = '', ...names] = text.split(/\s+/);
  if (!isHostsAddress(address)) return sink.malformed('not a hosts line: an address, then names');
  if (names.length === 0) return sink.malformed('an address without a name');
  for (const name of names) {
    if (MACHINE_NAMES.test(name)) sink.skip();
    else sink.domain(name);
  }
}

// Options that make a `||domain^` rule something else than a block of the domain: one that
// cancels another rule, ones that change a request instead of blocking it, and ones that apply
// only on some sites' pages or for some clients. Other options (third-party, important, all, ...)
// narrow what a browser blocks, and a link's target is blocked whole: ignored.
const NOT_A_DOMAIN_BLOCK = new Set([
  'badfilter',
  'removeparam',
  'removeheader',
  'csp',
  'permissions',
  'cookie',
  'header',
  'replace',
  'urltransform',
  'jsonprune',
  'dnsrewrite',
  'redirect-rule',
  'domain',
  'from',
  'client',
  'ctag',
]);
// What a rule's host part may not hold if it names a whole domain: a path, a wildcard, a port, ...
const NOT_A_HOST = /[/*^|:?=&$]/;

/**
 * `||evil.example^` and `||evil.example^$third-party`: the domain. Comments (`!`), headers
 * (`[Adblock Plus 2.0]`), cosmetic rules (`##`), exceptions (`@@`) and any other rule (a path, a
 * wildcard, a regular expression) are skipped: they are not a verdict on a whole domain.
 */
export function readAdblockLine(line: string, sink: EntrySink): void {
  const text = line.trim();
  if (!text.startsWith('||') || text.includes('#')) return sink.skip();
  const dollar = text.indexOf('$');
  const pattern = dollar === -1 ? text.slice(2) : text.slice(2, dollar);
  if (dollar !== -1 && optionNames(text.slice(dollar + 1)).some((name) => NOT_A_DOMAIN_BLOCK.has(name))) return sink.skip();
  const host = pattern.endsWith('^|') ? pattern.slice(0, -2) : pattern.endsWith('^') ? pattern.slice(0, -1) : undefined;
  if (host === undefined || host === '' || NOT_A_HOST.test(host)) return sink.skip();
  sink.domain(host);
}

/** `third-party,~image,domain=a.example|b.example` → third-party, image, domain. */
function optionNames(options: string): string[] {
  return options.split(',').map((option) => option.split('=', 1)[0]!.replace(/^~/, '').trim().toLowerCase());
}

/** One URL a line (URLhaus' text feed, OpenPhish's feed), `#` comments. A URL may hold a `#`: no trailing comments. */
export function readUrlLine(line: string, sink: EntrySink): void {
  const text = line.trim();
  if (text === '' || text.startsWith('#')) return sink.skip();
  sink.url(text);
}

const NO_URL_COLUMN = 'no url column in the header (phish_id,url,...)';

/**
 * PhishTank's CSV (`phish_id,url,phish_detail_url,...`): the `url` column, found by the header.
 * A line is a record: a URL holds no line break, so a quote that does not close on its line is
 * that line's fault alone, where a general CSV parser would read the rest of the file as one field.
 */
export function phishtankReader(): LineReader {
  // Undefined until the header is read; -1 when the header names no url column.
  let urlColumn: number | undefined;
  return (line, sink) => {
    if (line.trim() === '') return sink.skip();
    const fields = csvFields(line);
    if (fields === undefined) return sink.malformed('not a CSV line: a quote out of place, or one that does not close');
    if (urlColumn === undefined) {
      urlColumn = fields.findIndex((name) => name.trim().toLowerCase() === 'url');
      return urlColumn === -1 ? sink.malformed(NO_URL_COLUMN) : sink.skip();
    }
    if (urlColumn === -1) return sink.malformed(NO_URL_COLUMN);
    const url = fields[urlColumn];
    if (url === undefined) return sink.malformed('fewer columns than the header');
    sink.url(url);
  };
}

/** The fields of one CSV line (RFC 4180: `"a,b"`, `"say ""hi"""`); undefined if its quotes are not well formed. */
export function csvFields(line: string): string[] | undefined {
  const fields: string[] = [];
  let start = 0;
  for (;;) {
    const field = line.startsWith('"', start) ? quotedField(line, start) : plainField(line, start);
    if (field === undefined) return undefined;
    fields.push(field.value);
    if (field.end === line.length) return fields;
    if (line[field.end] !== ',') return undefined;
    start = field.end + 1;
  }
}

function plainField(line: string, start: number): { value: string; end: number } | undefined {
  const comma = line.indexOf(',', start);
  const end = comma === -1 ? line.length : comma;
  const value = line.slice(start, end);
  return value.includes('"') ? undefined : { value, end };
}

function quotedField(line: string, start: number): { value: string; end: number } | undefined {
  let value = '';
  for (let from = start + 1; ;) {
    const quote = line.indexOf('"', from);
    if (quote === -1) return undefined;
    value += line.slice(from, quote);
    if (line[quote + 1] !== '"') return { value, end: quote + 1 };
    value += '"';
    from = quote + 2;
  }
}
