// CSV files of other shorteners (and our own) read as links to create. Pure: no I/O.
// The caller parses the CSV; here each layout says which column holds what, and rows become POST /links bodies.
// The API checks those bodies as it checks any other; this module only refuses rows it cannot read.

import { aliasProblem } from '../core/codes.ts';
import {
  codeBetweenSlashes,
  codeInShortLink,
  codePercentDecoded,
  readExpiry,
  tagsByComma,
  tagsByPipe,
  tagsByPipeOrComma,
  withoutFormulaEscape,
} from './import-cells.ts';

export const IMPORT_FORMATS = ['generic', 'bitly', 'yourls', 'kutt', 'shlink'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One data row of the file: its line number in the file (the header is line 1) and its fields. */
export interface ImportRecord {
  readonly line: number;
  /** null is a bare SQL NULL (phpMyAdmin writes one unquoted), if the caller tells it apart from the text "NULL". */
  readonly fields: readonly (string | null)[];
}

/** What a row asks to create: the body of a POST /links (CreateLinkBody in link.ts). */
export interface ImportedLink {
  url: string;
  alias?: string;
  expiresAt?: string;
  title?: string;
  tags?: string[];
  /** Our own export's options column, parsed (the create checks them as any other). */
  options?: Record<string, unknown>;
}

export type RowVerdict = { ok: true; line: number; link: ImportedLink; note?: string } | { ok: false; line: number; message: string };

type CodeReader = (cell: string) => string;
type TagSplitter = (cell: string) => string[];

/** Where one export layout keeps each part of a link. Names are spelled as the exporter writes them. */
interface Layout {
  /** The long URL; the first column present is read. */
  readonly url: readonly string[];
  /** Columns holding the source's short code, best first: a code refused as an alias gives way to the next. */
  readonly codes: readonly (readonly [name: string, read: CodeReader])[];
  /** Our own files may leave every code to be generated; a service's file without its codes is not that service's. */
  readonly codesOptional?: boolean;
  readonly expiry?: readonly [name: string, zonelessIsUtc: boolean];
  readonly title?: string;
  readonly tags?: readonly [name: string, split: TagSplitter];
  /** A link's options as JSON (our export's column). */
  readonly options?: string;
  /** Our export writes a ' before a title or tag that a spreadsheet would run as a formula. */
  readonly formulaEscaped?: boolean;
}

const ALIAS_SHAPE = '3–64 of A-Z a-z 0-9 _ -';

const asIs = (cell: string): string => cell;

// Most specific first: a header names the format of the first layout whose columns it has.
const LAYOUTS: readonly (readonly [ImportFormat, Layout])[] = [
  // Shlink web client 3.6+ (and Shlink's own import template: "Long URL", "Short code", tags joined with "|").
  ['shlink', { url: ['longUrl'], codes: [['shortCode', codePercentDecoded]], title: 'title', tags: ['tags', tagsByPipe] }],
  // Shlink web client up to 3.5: no shortCode column, tags joined with ",".
  ['shlink', { url: ['longUrl'], codes: [['shortUrl', codeInShortLink]], title: 'title', tags: ['tags', tagsByComma] }],
  // Kutt exports nothing: its API's link fields flattened. expire_in is written without a zone, in UTC, on SQLite.
  ['kutt', { url: ['target'], codes: [['address', asIs]], expiry: ['expire_in', true], title: 'description' }],
  // Bitly's web export (its header is a best guess) or its API fields. A custom back-half beats the generated one.
  [
    'bitly',
    {
      url: ['Destination URL', 'long_url'],
      codes: [
        ['Custom Link', codeInShortLink],
        ['Link', codeInShortLink],
        ['Bitlink', codeInShortLink],
      ],
      title: 'Title',
      tags: ['Tags', tagsByPipeOrComma],
    },
  ],
  // The yourls_url table dumped by phpMyAdmin; the Import Export plugin's file, which writes keywords as "/kw/".
  ['yourls', { url: ['url'], codes: [['keyword', asIs]], title: 'title' }],
  ['yourls', { url: ['target'], codes: [['source', codeBetweenSlashes]] }],
  [
    'generic',
    {
      url: ['url'],
      codes: [
        ['alias', asIs],
        ['code', asIs],
      ],
      codesOptional: true,
      expiry: ['expiresAt', false],
      title: 'title',
      tags: ['tags', tagsByPipeOrComma],
      options: 'options',
      formulaEscaped: true,
    },
  ],
];
const DETECTION_ORDER: readonly ImportFormat[] = [...new Set(LAYOUTS.map(([format]) => format))];
const LABELS: Record<ImportFormat, string> = { generic: 'generic', bitly: 'Bitly', yourls: 'YOURLS', kutt: 'Kutt', shlink: 'Shlink' };

interface Column {
  readonly index: number;
  /** As the file spells it, for messages. */
  readonly name: string;
}

/** A layout's columns found in one header. */
interface Plan {
  readonly url: Column;
  readonly codes: readonly (readonly [Column, CodeReader])[];
  readonly expiry: readonly [Column, boolean] | undefined;
  readonly title: Column | undefined;
  readonly tags: readonly [Column, TagSplitter] | undefined;
  readonly options: Column | undefined;
  readonly unescape: (cell: string) => string;
}

/** The format a header row names, or undefined if it names none. */
export function detectFormat(header: readonly string[]): ImportFormat | undefined {
  return DETECTION_ORDER.find((format) => planOf(format, header) !== undefined);
}

/** Why `header` cannot be read as `format` (a missing required column), or undefined. */
export function headerProblem(format: ImportFormat, header: readonly string[]): string | undefined {
  if (planOf(format, header) !== undefined) return undefined;
  const needs = LAYOUTS.filter(([f]) => f === format).map(([, layout]) => needsOf(layout));
  return `a ${LABELS[format]} file needs ${needs.join(', or ')}`;
}

/** Each record as a link to create, in order; fully empty records are skipped. Throws if headerProblem() has one. */
export function readRecords(format: ImportFormat, header: readonly string[], records: readonly ImportRecord[]): RowVerdict[] {
  const plan = planOf(format, header);
  if (plan === undefined) throw new Error(headerProblem(format, header));
  const verdicts: RowVerdict[] = [];
  for (const record of records) {
    if (record.fields.some((field) => (field ?? '').trim() !== '')) verdicts.push(readRecord(plan, record));
  }
  return verdicts;
}

function readRecord(plan: Plan, { line, fields }: ImportRecord): RowVerdict {
  const url = textAt(fields, plan.url);
  if (url === '') return { ok: false, line, message: `no URL in column ${JSON.stringify(plan.url.name)}` };
  const link: ImportedLink = { url };
  if (plan.expiry !== undefined) {
    const [column, zonelessIsUtc] = plan.expiry;
    const expiry = readExpiry(textAt(fields, column), zonelessIsUtc);
    if (!expiry.ok) return { ok: false, line, message: `column ${JSON.stringify(column.name)}: ${expiry.problem}` };
    if (expiry.expiresAt !== undefined) link.expiresAt = expiry.expiresAt;
  }
  const title = plan.title === undefined ? '' : plan.unescape(textAt(fields, plan.title));
  if (title !== '') link.title = title;
  const tags = tagsOf(plan, fields);
  if (tags.length > 0) link.tags = tags;
  const options = plan.options === undefined ? '' : textAt(fields, plan.options);
  if (options !== '') {
    const parsed = parseObject(options);
    if (parsed === undefined)
      return { ok: false, line, message: `column ${JSON.stringify(plan.options?.name)}: not a JSON object of link options` };
    link.options = parsed;
  }
  const { alias, notes } = aliasOf(plan, fields);
  if (alias !== undefined) link.alias = alias;
  return notes.length === 0 ? { ok: true, line, link } : { ok: true, line, link, note: notes.join('; ') };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function tagsOf(plan: Plan, fields: ImportRecord['fields']): string[] {
  if (plan.tags === undefined) return [];
  const [column, split] = plan.tags;
  const cell = textAt(fields, column);
  if (cell === '') return [];
  return split(cell)
    .map((tag) => plan.unescape(tag.trim()))
    .filter((tag) => tag !== '');
}

/** The first of the row's codes that is a valid alias here, and a note for each refused on the way. */
function aliasOf(plan: Plan, fields: ImportRecord['fields']): { alias: string | undefined; notes: string[] } {
  const notes: string[] = [];
  for (const [column, read] of plan.codes) {
    const code = read(plan.unescape(textAt(fields, column)));
    if (code === '') continue;
    const problem = aliasProblem(code);
    if (problem === undefined) {
      if (notes.length > 0) notes.push(`kept ${JSON.stringify(code)} from column ${JSON.stringify(column.name)} instead`);
      return { alias: code, notes };
    }
    const why = problem === 'ALIAS_RESERVED' ? 'is a reserved word here' : `is not a valid alias here (${ALIAS_SHAPE})`;
    notes.push(`code ${JSON.stringify(code)} ${why}`);
  }
  if (notes.length > 0) notes.push('a new code will be generated');
  return { alias: undefined, notes };
}

function planOf(format: ImportFormat, header: readonly string[]): Plan | undefined {
  const columns = columnsOf(header);
  for (const [f, layout] of LAYOUTS) {
    if (f !== format) continue;
    const url = layout.url.map((name) => columns.get(keyOf(name))).find((column) => column !== undefined);
    const codes = layout.codes.map((entry) => located(columns, entry)).filter((entry) => entry !== undefined);
    if (url === undefined || (codes.length === 0 && layout.codesOptional !== true)) continue;
    return {
      url,
      codes,
      expiry: located(columns, layout.expiry),
      title: layout.title === undefined ? undefined : columns.get(keyOf(layout.title)),
      tags: located(columns, layout.tags),
      options: layout.options === undefined ? undefined : columns.get(keyOf(layout.options)),
      unescape: layout.formulaEscaped === true ? withoutFormulaEscape : asIs,
    };
  }
  return undefined;
}

function located<T>(columns: Map<string, Column>, entry: readonly [string, T] | undefined): readonly [Column, T] | undefined {
  const column = entry === undefined ? undefined : columns.get(keyOf(entry[0]));
  return column === undefined || entry === undefined ? undefined : [column, entry[1]];
}

/** Header names by key; the first of two columns with one name wins. */
function columnsOf(header: readonly string[]): Map<string, Column> {
  const columns = new Map<string, Column>();
  header.forEach((name, index) => {
    const key = keyOf(name);
    if (!columns.has(key)) columns.set(key, { index, name: name.trim() }); // trim() drops a BOM too
  });
  return columns;
}

/** Case, spaces, punctuation and a BOM do not count: "Long URL", "long_url" and "longUrl" are one name. */
function keyOf(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

function needsOf(layout: Layout): string {
  const url = `a column ${oneOf(layout.url)}`;
  return layout.codesOptional === true ? url : `${url} and a column ${oneOf(layout.codes.map(([name]) => name))}`;
}

function oneOf(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(' or ');
}

function textAt(fields: ImportRecord['fields'], column: Column): string {
  return (fields[column.index] ?? '').trim();
}
