// A CSV file of links cut into files that POST /links/import takes whole (at most 5000 rows and
// 5 MiB each: docs/api.md), each with the header row. It is read as the service reads an import
// (src/links/csv-file.ts: csv-parse, a BOM allowed, blank lines skipped, a bare NULL is null) and
// each row written again with every field quoted, so a field with commas, quotes or line breaks
// reaches the service as it was. Each row keeps the line the service would name for the whole file.

import { createReadStream } from 'node:fs';
import { pipeline, Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { CliError, EXIT } from './exit-codes.ts';

export interface ChunkLimits {
  readonly rows: number;
  readonly bytes: number;
}

export interface CsvChunk {
  /** The header row, then the chunk's rows, as CSV text. */
  readonly body: string;
  /** The line of the file each row starts on (the header is line 1), as an import of the whole file would report it. */
  readonly lines: readonly number[];
}

interface FileRecord {
  readonly fields: readonly (string | null)[];
  readonly line: number;
}

/** Rows below the header. Reading the whole file first also finds a broken one before any row is sent. */
export async function countRows(path: string): Promise<number> {
  const records = fileRecords(path);
  let count = 0;
  while (!(await records.next()).done) count++;
  return Math.max(0, count - 1);
}

/** The file's rows in chunks of at most `limits.rows` rows and `limits.bytes` bytes, header included. */
export async function* csvChunks(path: string, limits: ChunkLimits): AsyncGenerator<CsvChunk> {
  let header: string | undefined;
  let rows = '';
  let bytes = 0;
  let lines: number[] = [];
  for await (const record of fileRecords(path)) {
    const text = csvLine(record.fields);
    if (header === undefined) {
      header = text;
      continue;
    }
    const size = Buffer.byteLength(text);
    const full = lines.length >= limits.rows || Buffer.byteLength(header) + bytes + size > limits.bytes;
    if (lines.length > 0 && full) {
      yield { body: header + rows, lines };
      rows = '';
      bytes = 0;
      lines = [];
    }
    rows += text;
    bytes += size;
    lines.push(record.line);
  }
  if (header !== undefined && lines.length > 0) yield { body: header + rows, lines };
}

function csvLine(fields: readonly (string | null)[]): string {
  return `${fields.map((field) => (field === null ? 'NULL' : `"${field.replaceAll('"', '""')}"`)).join(',')}\r\n`;
}

/** The file's records, the header first, each with the line it starts on (the service's count: csv-file.ts). */
async function* fileRecords(path: string): AsyncGenerator<FileRecord> {
  const parser = parse({
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    max_record_size: 64 * 1024,
    cast: (value, context) => (!context.quoting && value === 'NULL' ? null : value),
  });
  // Errors of the file or of the decoding end the parser with them, and so the loop below.
  pipeline(Readable.from(utf8Text(path)), parser, () => {});
  let lines = 0;
  let emptyLines = 0;
  let yielded = false;
  try {
    for await (const read of parser as AsyncIterable<{ record: (string | null)[]; info: { lines: number; empty_lines: number } }>) {
      const line = lines + 1 + (read.info.empty_lines - emptyLines);
      lines = read.info.lines;
      emptyLines = read.info.empty_lines;
      // A row of empty fields (a spreadsheet's trailing ",,,") is no row to the service, which answers
      // nothing for it (links/import-formats.ts): it is neither sent nor counted. The header is a header.
      if (yielded && !read.record.some((field) => (field ?? '').trim() !== '')) continue;
      yielded = true;
      yield { fields: read.record, line };
    }
  } catch (error) {
    throw fileError(path, error);
  }
}

/** The file as text; a byte sequence that is not UTF-8 is an error (a BOM is dropped). */
async function* utf8Text(path: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for await (const bytes of createReadStream(path)) yield decoder.decode(bytes as Buffer, { stream: true });
  yield decoder.decode();
}

function fileError(path: string, error: unknown): CliError {
  if (error instanceof CsvError) return new CliError('IMPORT_INVALID', `${path} cannot be read as CSV: ${error.message}`, EXIT.invalid);
  if (error instanceof TypeError && (error as NodeJS.ErrnoException).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
    return new CliError('IMPORT_INVALID', `${path} is not UTF-8 text (save it as "CSV UTF-8")`, EXIT.invalid);
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new CliError('FILE_UNREADABLE', `cannot read ${path}: ${reason}`, EXIT.usage);
}
