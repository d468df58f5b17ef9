// `shortener import <file.csv>` and `shortener export`. An import of any size goes as files the
// route takes whole (csv-chunks.ts), one after the other, with the progress on stderr after each; a
// chunk refused for the rate limit (429) or a busy service (503) is sent again after its
// Retry-After, which is safe: a row imported already comes back "existing". The rows' reports are
// merged into one, each row named by its line in the whole file.

import { createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, Option } from 'commander';
import { ShortenerError, type Client } from '../client/client.ts';
import * as api from '../client/operations.ts';
import type { IMPORT_FORMATS as SERVICE_FORMATS } from '../links/import-formats.ts';
import { integerIn } from './arguments.ts';
import { connect, wantsJson } from './config.ts';
import { countRows, csvChunks, type CsvChunk } from './csv-chunks.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { LINK_STATES } from './links-list.ts';
import { count, print, printJson, say } from './output.ts';

type ImportReport = api.PostLinksImportResponses[200];
type ImportQuery = NonNullable<api.PostLinksImportData['query']>;

const IMPORT_FORMATS = ['auto', 'generic', 'bitly', 'yourls', 'kutt', 'shlink'] as const satisfies readonly [
  'auto',
  ...typeof SERVICE_FORMATS,
];
/** The route takes 5000 rows and 5 MiB a request; a chunk stays below both. */
const CHUNK_ROWS_MAX = 5000;
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Waits longer than this (seconds) are not waited for: the error is reported instead. */
const LONGEST_WAIT = 300;
const ATTEMPTS = 10;

interface ImportOptions {
  format: string;
  domain?: string;
  chunkRows: number;
}

export function importCommand(): Command {
  return new Command('import')
    .description('import links from a CSV file (ours, or an export of Bitly, YOURLS, Kutt or Shlink), in chunks, with progress')
    .argument('<file>', 'the CSV file (UTF-8)')
    .addOption(new Option('--format <format>', 'the layout of the file').choices(IMPORT_FORMATS).default('auto'))
    .option('--domain <host>', 'the short domain every row goes on (default: the default domain)')
    .option('--chunk-rows <n>', `rows a request, 1-${CHUNK_ROWS_MAX}`, integerIn(1, CHUNK_ROWS_MAX), 1000)
    .option('--json', 'print the report of every row as JSON')
    .action(async (file: string, options: ImportOptions, command: Command) => {
      const client = await connect(command);
      const total = await countRows(file);
      if (total === 0) throw new CliError('IMPORT_INVALID', `${file} has no rows below its header`, EXIT.invalid);
      const report = await importChunks(client, file, options, total);
      if (wantsJson(command)) printJson(report);
      else showReport(report);
      if (report.failed > 0) process.exitCode = EXIT.partial;
    });
}

async function importChunks(client: Client, file: string, options: ImportOptions, total: number): Promise<ImportReport> {
  const report: ImportReport = { format: options.format, rows: 0, created: 0, existing: 0, failed: 0, results: [] };
  const query: ImportQuery = { format: options.format, ...(options.domain === undefined ? {} : { domain: options.domain }) };
  try {
    for await (const chunk of csvChunks(file, { rows: options.chunkRows, bytes: CHUNK_BYTES })) {
      const answer = await sendChunk(client, chunk, query);
      // Every chunk has the first one's header: read them all as the service read the first.
      query.format = answer.format;
      merge(report, answer, chunk);
      say(`imported ${count(report.rows)} of ${count(total)} rows`);
    }
  } catch (error) {
    if (report.rows > 0) {
      say(
        `stopped after ${count(report.rows)} of ${count(total)} rows; importing the file again is safe: rows imported already come back "existing"`,
      );
    }
    throw error;
  }
  return report;
}

async function sendChunk(client: Client, chunk: CsvChunk, query: ImportQuery): Promise<ImportReport> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { data } = await api.postLinksImport({
        client,
        throwOnError: true,
        query,
        // The route's schema types the body as what the service parses the CSV into (an object): the text goes as it is.
        body: {},
        bodySerializer: () => chunk.body,
      });
      return data;
    } catch (error) {
      const wait = retryAfter(error, attempt);
      if (wait === undefined) throw error;
      say(`${(error as ShortenerError).code}: waiting ${wait} s before sending the rows from line ${chunk.lines[0]} again`);
      await sleep(wait * 1000);
    }
  }
}

/** Seconds to wait before sending a chunk again, or undefined: report the error. */
function retryAfter(error: unknown, attempt: number): number | undefined {
  if (!(error instanceof ShortenerError) || (error.status !== 429 && error.status !== 503)) return undefined;
  if (error.retryAfter === undefined || error.retryAfter > LONGEST_WAIT || attempt >= ATTEMPTS) return undefined;
  return Math.max(1, error.retryAfter);
}

/** Adds a chunk's answer to the report, its rows named by their lines in the whole file. */
function merge(report: ImportReport, answer: ImportReport, chunk: CsvChunk): void {
  if (answer.results.length !== chunk.lines.length) {
    throw new CliError(
      'IMPORT_REPORT_UNEXPECTED',
      `the service reported ${answer.results.length} rows of ${chunk.lines.length} sent`,
      EXIT.error,
    );
  }
  report.format = answer.format;
  report.rows += answer.rows;
  report.created += answer.created;
  report.existing += answer.existing;
  report.failed += answer.failed;
  answer.results.forEach((result, index) => report.results.push({ ...result, row: chunk.lines[index] ?? result.row }));
}

function showReport(report: ImportReport): void {
  print(
    `${count(report.rows)} rows (${report.format}): ${count(report.created)} created, ` +
      `${count(report.existing)} existing, ${count(report.failed)} failed`,
  );
  for (const result of report.results) {
    if (result.error !== undefined) print(`line ${result.row}: failed: ${result.error.message} (${result.error.code})`);
    if (result.note !== undefined) print(`line ${result.row}: note: ${result.note}`);
  }
}

interface ExportOptions {
  output?: string;
  q?: string;
  tag?: string;
  state?: string;
  domain?: string;
}

export function exportCommand(): Command {
  return new Command('export')
    .description("the workspace's links as CSV (with their clicks), to stdout or a file; the import reads it back")
    .option('-o, --output <file>', 'write to this file (whole or not at all) instead of stdout')
    .option('--q <text>', 'only links whose code, target or title has this text')
    .option('--tag <tag>', 'only links with this tag')
    .addOption(new Option('--state <state>', 'only links in this state').choices(LINK_STATES))
    .option('--domain <host>', 'only links on this short domain')
    .action(async (options: ExportOptions, command: Command) => {
      const client = await connect(command);
      const { output, ...filters } = options;
      const { data } = await api.getLinksExportCsv({ client, throwOnError: true, query: filters, parseAs: 'stream' });
      // With parseAs 'stream' the answer is its body, unread: the file is streamed, never held whole.
      const csv = Readable.fromWeb(data as unknown as ReadableStream<Uint8Array>);
      if (output === undefined) return pipeline(csv, process.stdout, { end: false });
      await writeWhole(csv, output);
      say(`wrote ${output} (${count((await stat(output)).size)} bytes)`);
    });
}

/** Streams into a file beside `path` and renames it over `path` once complete: an export cut short leaves no file that looks whole. */
async function writeWhole(source: Readable, path: string): Promise<void> {
  const partial = `${path}.partial`;
  try {
    await pipeline(source, createWriteStream(partial));
    await rename(partial, path);
  } catch (error) {
    await unlink(partial).catch(() => {});
    // The file system's errors name a system call; the service's (a body cut short) do not.
    if (error instanceof Error && 'syscall' in error) {
      throw new CliError('FILE_UNWRITABLE', `cannot write ${path}: ${error.message}`, EXIT.usage);
    }
    throw error;
  }
}
