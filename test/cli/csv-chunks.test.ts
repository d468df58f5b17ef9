// The import's chunks (src/cli/csv-chunks.ts) against the service's own CSV reader
// (src/links/csv-file.ts): each chunk, parsed as the service parses a request, gives the header and
// the same records as the whole file did, in order, and each row keeps the line an import of the
// whole file would name. Without a service: a file on disk and the parser.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { countRows, csvChunks, type CsvChunk } from '../../src/cli/csv-chunks.ts';
import { CliError } from '../../src/cli/exit-codes.ts';
import { parseCsv } from '../../src/links/csv-file.ts';

let directory: string;
before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'shortener-csv-'));
});
after(() => rm(directory, { recursive: true, force: true }));

async function fileOf(name: string, content: string | Buffer): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, content);
  return path;
}

async function chunksOf(path: string, rows: number, bytes = 4 * 1024 * 1024): Promise<CsvChunk[]> {
  const chunks: CsvChunk[] = [];
  for await (const chunk of csvChunks(path, { rows, bytes })) chunks.push(chunk);
  return chunks;
}

// A BOM, CRLF line ends (Excel's), blank lines, quotes, commas and line breaks inside fields, a
// bare NULL (null to the service) and a quoted one (text), rows of different lengths, no last line end.
const TRICKY = [
  '\uFEFFurl,title,tags\r\n',
  'https://example.com/1,"Say ""hi"", then go",a|b\r\n',
  '\r\n',
  'https://example.com/2,"two\nlines",NULL\r\n',
  'https://example.com/3,"NULL"\r\n',
  '\r\n\r\n',
  'https://example.com/4,,c,extra\r\n',
  'https://example.com/5,é ✓,d',
].join('');

test('every chunk holds the header and the next rows, as the service reads them, each with its line in the file', async () => {
  const path = await fileOf('tricky.csv', TRICKY);
  const whole = await parseCsv(Buffer.from(TRICKY), 5000);
  assert.equal(await countRows(path), 5);
  assert.equal(whole.records.length, 5);

  const chunks = await chunksOf(path, 2);
  assert.deepEqual(
    chunks.map((chunk) => chunk.lines.length),
    [2, 2, 1],
  );
  const read = await Promise.all(chunks.map((chunk) => parseCsv(Buffer.from(chunk.body), 5000)));
  for (const file of read) assert.deepEqual(file.header, whole.header);
  assert.deepEqual(
    read.flatMap((file) => file.records.map((record) => record.fields)),
    whole.records.map((record) => record.fields),
  );
  assert.deepEqual(
    chunks.flatMap((chunk) => chunk.lines),
    whole.records.map((record) => record.line),
  );
  assert.deepEqual(
    whole.records.slice(1, 3).map((record) => record.fields),
    [
      ['https://example.com/2', 'two\nlines', null],
      ['https://example.com/3', 'NULL'],
    ],
    'a bare NULL is null, a quoted one text',
  );
});

test('a chunk ends before the row that would take it past the byte limit', async () => {
  const rows = Array.from({ length: 10 }, (_, i) => `https://example.com/${i},${'x'.repeat(100)}`);
  const path = await fileOf('wide.csv', `url,title\n${rows.join('\n')}\n`);
  const chunks = await chunksOf(path, 1000, 500);
  assert.ok(chunks.length > 1, `${chunks.length} chunks`);
  for (const chunk of chunks) assert.ok(Buffer.byteLength(chunk.body) <= 500, `${Buffer.byteLength(chunk.body)} bytes`);
  assert.deepEqual(
    chunks.flatMap((chunk) => chunk.lines),
    Array.from({ length: 10 }, (_, i) => i + 2),
  );
});

test('a file that is not UTF-8, or not CSV, is refused before any chunk; a missing one is a usage error', async () => {
  const latin1 = await fileOf('latin1.csv', Buffer.from('url,title\nhttps://example.com/1,caf\xe9\n', 'latin1'));
  const unclosed = await fileOf('unclosed.csv', 'url,title\nhttps://example.com/1,"never closed\n');
  const refusal = async (path: string) =>
    countRows(path).then(
      () => assert.fail(`${path} was read`),
      (error: unknown) => error as CliError,
    );
  const [notUtf8, notCsv, missing] = await Promise.all([refusal(latin1), refusal(unclosed), refusal(join(directory, 'missing.csv'))]);
  assert.deepEqual([notUtf8.code, notUtf8.exitCode], ['IMPORT_INVALID', 5]);
  assert.match(notUtf8.message, /not UTF-8/);
  assert.deepEqual([notCsv.code, notCsv.exitCode], ['IMPORT_INVALID', 5]);
  assert.deepEqual([missing.code, missing.exitCode], ['FILE_UNREADABLE', 2]);
});

test("a row of empty fields (a spreadsheet's trailing ',,') is neither sent nor counted, as the service answers nothing for it", async () => {
  const path = await fileOf('blank-rows.csv', 'url,title\nhttps://example.com/a,A\n, \n"",NULL\nhttps://example.com/b,B\n,,\n');
  assert.equal(await countRows(path), 2);
  const chunks = await chunksOf(path, 1000);
  assert.deepEqual(
    chunks.map((chunk) => chunk.lines),
    [[2, 5]],
  );
});
