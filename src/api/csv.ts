// CSV in and out. Writing (RFC 4180): a field with a comma, a quote or a line break is quoted, its
// quotes doubled; free text (a title, each tag, a key's name) that would start a spreadsheet
// formula is written after a "'" (OWASP's advice against CSV injection), which links/import-cells.ts
// removes again on import. Reading: csv-parse, fed a slice at a time with a turn of the event loop between
// slices, so that a 5 MiB file never holds up the redirects.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse } from 'csv-parse';
import type { ImportRecord } from '../links/import-formats.ts';

/** A cell of people's text, escaped against formulas; plain strings are written as they are. */
export interface TextCell {
  readonly text: string;
}

const NEEDS_QUOTES = /[",\r\n]/;
// A ' of the text itself is escaped too, so that the import can tell it from the guard.
const FORMULA_START = /^[=+\-@\t\r']/;

/** People's text as a spreadsheet shows it, never as a formula. */
export function formulaSafe(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export function csvCell(cell: string | TextCell): string {
  const value = typeof cell === 'string' ? cell : formulaSafe(cell.text);
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One record, ended with CRLF as RFC 4180 has it. */
export function csvLine(cells: readonly (string | TextCell)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A file as its first record (the header) and the records after it, each with the line it starts on. */
export interface CsvFile {
  readonly header: readonly string[];
  readonly records: readonly ImportRecord[];
}

/** Files this module parsed: a body of another origin is never mistaken for one. */
const parsed = new WeakSet<object>();

export function isCsvFile(value: unknown): value is CsvFile {
  return typeof value === 'object' && value !== null && parsed.has(value);
}

const SLICE_BYTES = 64 * 1024;

/** Parses `bytes` (UTF-8, a BOM allowed; blank lines skipped); rejects with csv-parse's error, or when over `maxRecords`. */
export async function parseCsv(bytes: Buffer, maxRecords: number): Promise<CsvFile> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    max_record_size: 64 * 1024,
    // A bare NULL is SQL's (a phpMyAdmin dump of YOURLS); a quoted "NULL" is text.
    cast: (value, context) => (!context.quoting && value === 'NULL' ? null : value),
  });
  const records: ImportRecord[] = [];
  let header: string[] | undefined;
  let lines = 0;
  let emptyLines = 0;
  let failure: Error | undefined;
  parser.on('error', (err: Error) => {
    failure = err;
  });
  parser.on('readable', () => {
    type Read = { record: (string | null)[]; info: { lines: number; empty_lines: number } };
    for (let read = parser.read() as Read | null; read !== null; read = parser.read() as Read | null) {
      const line = lines + 1 + (read.info.empty_lines - emptyLines);
      lines = read.info.lines;
      emptyLines = read.info.empty_lines;
      if (header === undefined) header = read.record.map((name) => name ?? 'NULL');
      else if (records.length < maxRecords + 1) records.push({ line, fields: read.record });
    }
  });
  const ended = new Promise<void>((resolve) => parser.once('close', resolve));
  for (let offset = 0; offset < bytes.length && !parser.destroyed; offset += SLICE_BYTES) {
    parser.write(bytes.subarray(offset, offset + SLICE_BYTES));
    await nextTurn();
  }
  parser.end();
  await ended;
  if (failure !== undefined) throw failure;
  if (records.length > maxRecords) throw new RangeError(`more than ${maxRecords} rows`);
  const file = { header: header ?? [], records };
  parsed.add(file);
  return file;
}
