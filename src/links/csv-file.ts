// A CSV file of links to import, read with csv-parse fed a slice at a time with a turn of the event
// loop between slices, so that a 5 MiB file never holds up the redirects.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse } from 'csv-parse';
import type { ImportRecord } from './import-formats.ts';

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
