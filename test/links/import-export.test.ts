// CSV in and out: POST /links/import (our own layout and the exports of Bitly, YOURLS, Kutt and
// Shlink, each row answered on its own, the same file twice creating nothing new) and
// GET /links/export.csv (streamed, the list's filters, cells a spreadsheet will not run as
// formulas), and a workspace exported and imported into another database unchanged.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { CreatedKey } from '../../src/auth/api-keys.ts';
import { errorOf, bearer, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { workspaceWith } from '../helpers/workspaces.ts';
import { invalidCodeNote as invalid, reservedCodeNote as reserved } from '../helpers/import-notes.ts';

let database: TestDatabase;
let app: FastifyInstance;
let pool: pg.Pool;
const cleanups: (() => Promise<void>)[] = [];
const fileScope: Cleanup = { after: (fn) => cleanups.push(fn) };

before(async () => {
  database = await createTestDatabase('import_export');
  ({ app, pool } = await startApp(fileScope, database.url));
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

const EXPORT_HEADER = [
  'code',
  'domain',
  'shortUrl',
  'url',
  'title',
  'tags',
  'createdAt',
  'expiresAt',
  'disabled',
  'clicks',
  'botClicks',
  'creator',
  'options',
];
const GENERATED = /^[0-9A-Za-z]{7}$/;

interface RowResult {
  row: number;
  status: 'created' | 'existing' | 'failed';
  code?: string;
  shortUrl?: string;
  error?: { code: string; message: string };
  note?: string;
}
interface Report {
  format: string;
  rows: number;
  created: number;
  existing: number;
  failed: number;
  results: RowResult[];
}
interface Link {
  code: string;
  url: string;
  title: string | null;
  tags: string[];
  expiresAt: string | null;
  createdAt: string;
  disabled: boolean;
  options: Record<string, unknown> | null;
}

function postImport(
  on: FastifyInstance,
  key: CreatedKey | undefined,
  body: string | Buffer,
  { query = 'format=auto', contentType = 'text/csv' } = {},
) {
  return on.inject({
    method: 'POST',
    url: `/links/import?${query}`,
    headers: { 'content-type': contentType, ...(key === undefined ? {} : bearer(key)) },
    payload: body,
  });
}

async function importFile(key: CreatedKey, body: string | Buffer, on = app): Promise<Report> {
  const res = await postImport(on, key, body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Report>();
}

async function linksIn(workspaceId: number, db: pg.Pool = pool): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM links WHERE workspace_id = $1 AND NOT deleted', [
    workspaceId,
  ]);
  return rows[0]?.n ?? Number.NaN;
}

async function exportCsv(key: CreatedKey, query = '', on = app) {
  const res = await on.inject({ url: `/links/export.csv${query === '' ? '' : `?${query}`}`, headers: bearer(key) });
  assert.equal(res.statusCode, 200, res.body);
  const [header, ...rows] = parse(res.body);
  assert.deepEqual(header, EXPORT_HEADER);
  const records = rows.map((cells) => Object.fromEntries(EXPORT_HEADER.map((name, i) => [name, cells[i] ?? ''])));
  return { res, records, codes: records.map((record) => record.code ?? '') };
}

async function details(key: CreatedKey, code: string, on = app): Promise<Link> {
  const res = await on.inject({ url: `/links/${code}`, headers: bearer(key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Link>();
}

async function create(key: CreatedKey, body: Record<string, unknown>, on = app): Promise<string> {
  const res = await on.inject({ method: 'POST', url: '/links', headers: bearer(key), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

// What each row of a fixture should come to.
type Expected =
  | { row: number; status: 'created'; alias: string | undefined; url: string; note?: string }
  | { row: number; status: 'failed'; error: string };
const kept = (row: number, alias: string, url: string, note?: string): Expected => ({
  row,
  status: 'created',
  alias,
  url,
  ...(note === undefined ? {} : { note }),
});
const generated = (row: number, url: string, note?: string): Expected => ({
  row,
  status: 'created',
  alias: undefined,
  url,
  ...(note === undefined ? {} : { note }),
});
const failed = (row: number, error: string): Expected => ({ row, status: 'failed', error });

/**
 * The fixtures, in the order the tests import them. Codes are one namespace for every workspace (a
 * short link names one link), so an alias taken by an earlier fixture, in its own workspace, is
 * ALIAS_TAKEN for a later one: those rows say which.
 */
const FIXTURES: { file: string; format: string; rows: Expected[] }[] = [
  {
    file: 'generic.csv',
    format: 'generic',
    rows: [
      kept(2, 'spring-sale', 'https://shop.example/sale?utm_source=newsletter&utm_medium=email&utm_campaign=spring_2027'),
      generated(3, 'https://example.com/blog/how-we-ship'),
      kept(4, 'cafe-menu', 'https://example.org/carte/%C3%A9t%C3%A9?lang=fr'),
      generated(5, 'https://example.com/hello', invalid('hi')),
      generated(6, 'https://example.org/documentation', reserved('docs')),
      failed(7, 'EXPIRES_AT_IN_PAST'),
      kept(8, 'summer_2027', 'https://example.com/summer'),
      failed(9, 'ALIAS_TAKEN'), // spring-sale, by row 2 (another URL)
      failed(10, 'IMPORT_ROW_INVALID'), // no URL
      // line 11 is blank: no row
      failed(12, 'IMPORT_ROW_INVALID'), // "next friday"
    ],
  },
  {
    file: 'bitly.csv',
    format: 'bitly',
    rows: [
      kept(
        2,
        'spring-sale-2025',
        'https://shop.example/sale?utm_source=bitly&utm_medium=social&utm_campaign=spring_2025&utm_content=hero%2Cbanner',
      ),
      kept(3, '3Xy9ZqR', 'https://example.com/blog/how-we-ship'),
      kept(4, 'cafe', 'https://example.org/carte/%C3%A9t%C3%A9?lang=fr'),
      kept(5, '3Qw7TtY', 'https://example.com/hello', invalid('hi', 'kept "3Qw7TtY" from column "Link" instead')),
      kept(6, '49mNbV1', 'https://example.org/events/spring'),
      kept(7, 'The_Summer_Edit', 'https://shop.example/collections/summer?sort=new&view=grid&utm_source=bitly'),
      kept(8, '3Rt5UvW', 'https://shop.example/deals?category=electronics&sort=price_asc&page=2&utm_campaign=black_friday_2025'),
    ],
  },
  {
    file: 'yourls.csv',
    format: 'yourls',
    rows: [
      kept(2, 'Summer2026', 'https://example.com/summer'),
      generated(3, 'https://example.com/launch', invalid('✨')),
      generated(4, 'https://example.org/documentation', reserved('docs')),
      failed(5, 'ALIAS_TAKEN'), // spring-sale, by generic.csv
      generated(6, 'https://shop.example/cart?coupon=SPRING,SUMMER', invalid('a7')),
      generated(7, 'https://example.org/docs/getting-started', invalid('2')),
      generated(8, 'https://example.com/', invalid('1')),
    ],
  },
  {
    file: 'yourls-db.csv',
    format: 'yourls',
    rows: [
      generated(2, 'https://example.com/', invalid('1')),
      generated(3, 'https://example.org/docs/getting-started', invalid('2')),
      generated(4, 'https://shop.example/cart?coupon=SPRING,SUMMER', invalid('a7')),
      failed(5, 'ALIAS_TAKEN'), // spring-sale, by generic.csv
      generated(6, 'https://example.org/documentation', reserved('docs')),
      generated(7, 'https://example.com/launch', invalid('✨')),
      failed(8, 'ALIAS_TAKEN'), // Summer2026, by yourls.csv: the same URL, but in another workspace
    ],
  },
  {
    file: 'kutt.csv',
    format: 'kutt',
    rows: [
      failed(2, 'ALIAS_TAKEN'), // spring-sale, by generic.csv
      kept(3, 'x7Kp2Q', 'https://example.com/blog/how-we-ship?ref=kutt&utm_source=twitter&utm_medium=social'),
      generated(4, 'https://example.com/about', invalid('ab')),
      generated(5, 'https://example.org/docs/guia-rapido', reserved('docs')),
      kept(6, 'Summer_Sale-2025', 'https://shop.example/collections/summer'),
      failed(7, 'EXPIRES_AT_IN_PAST'), // expire_in 2025-12-31
    ],
  },
  {
    file: 'shlink.csv',
    format: 'shlink',
    rows: [
      failed(2, 'ALIAS_TAKEN'), // spring-sale, by generic.csv
      kept(3, 'Xk9fQ', 'https://example.com/blog/how-we-ship'),
      failed(4, 'ALIAS_TAKEN'), // cafe-menu, by generic.csv: the same URL, but in another workspace
      generated(5, 'https://shop.example/collections/summer', invalid('promo/summer')),
      failed(6, 'ALIAS_TAKEN'), // spring-sale (of another domain), by generic.csv
      generated(7, 'https://example.com/about', invalid('ab')),
      generated(8, 'https://example.com/caf%C3%A9', invalid('café')),
      kept(
        9,
        'bf2025',
        'https://shop.example/deals?category=electronics&sort=price_asc&page=2&utm_source=x&utm_campaign=black_friday_2025',
      ),
    ],
  },
  {
    file: 'shlink-old.csv',
    format: 'shlink',
    rows: [
      failed(2, 'ALIAS_TAKEN'), // spring-sale, by generic.csv
      failed(3, 'ALIAS_TAKEN'), // Xk9fQ, by shlink.csv: the same URL, but in another workspace
      generated(4, 'https://shop.example/collections/summer', invalid('promo/summer')),
      generated(5, 'https://example.com/about', invalid('ab')),
      generated(6, 'https://example.com/caf%C3%A9', invalid('café')),
    ],
  },
];

/**
 * Asserts that `report` answers each row as `expected` says, created rows coming back as `created`
 * (or "existing"), and returns the code of each created row by its line.
 */
function assertReport(report: Report, format: string, expected: Expected[], created: 'created' | 'existing', codes?: Map<number, string>) {
  const results: RowResult[] = expected.map((row, i) => {
    if (row.status === 'failed')
      return { row: row.row, status: 'failed', error: { code: row.error, message: report.results[i]?.error?.message ?? '' } };
    const actual = report.results[i]?.code ?? '';
    const code = codes?.get(row.row) ?? row.alias ?? (GENERATED.test(actual) ? actual : '<a generated code>');
    return {
      row: row.row,
      status: created,
      code,
      shortUrl: `https://sho.rt/${code}`,
      ...(row.note === undefined ? {} : { note: row.note }),
    };
  });
  const count = (status: string) => expected.filter((row) => row.status === status).length;
  assert.deepEqual(report, {
    format,
    rows: expected.length,
    created: created === 'created' ? count('created') : 0,
    existing: created === 'existing' ? count('created') : 0,
    failed: count('failed'),
    results,
  });
  for (const result of report.results) {
    if (result.status === 'failed') assert.ok((result.error?.message ?? '') !== '', `row ${result.row}: the failure says why`);
  }
  return new Map(report.results.filter((result) => result.code !== undefined).map((result) => [result.row, result.code as string]));
}

describe('POST /links/import: the fixtures', () => {
  for (const { file, format, rows } of FIXTURES) {
    test(`${file} is read as ${format}, each row answered with its code and notes, links redirect; again, nothing new`, async () => {
      const csv = readFileSync(new URL(`fixtures/${file}`, import.meta.url));
      const {
        id,
        keys: { admin },
      } = await workspaceWith(database.url, `fixture ${file}`, { admin: 'admin' });

      const first = await importFile(admin, csv);
      const codes = assertReport(first, format, rows, 'created');
      const made = rows.filter((row) => row.status === 'created');
      assert.equal(new Set(codes.values()).size, made.length, 'each created row has a code of its own');
      assert.equal(await linksIn(id), made.length, 'a link per created row, none for a failed one');
      for (const row of made) {
        const code = codes.get(row.row) as string;
        const res = await app.inject({ url: `/${code}` });
        assert.equal(res.statusCode, 302, `row ${row.row}: GET /${code}`);
        assert.equal(res.headers.location, row.url, `row ${row.row}: GET /${code}`);
      }

      const again = await importFile(admin, csv);
      assertReport(again, format, rows, 'existing', codes);
      assert.equal(await linksIn(id), made.length, 'the second import created nothing');
    });
  }
});

/** A file of our own layout: `count` rows, every other one with an alias. */
function generatedFile(label: string, count: number): string {
  const rows = Array.from(
    { length: count },
    (_, i) => `https://example.com/${label}/${i},${i % 2 === 0 ? `${label}-${i}` : ''},"Row ${i}, of ${count}",${label}|n${i % 3}`,
  );
  return `url,alias,title,tags\n${rows.join('\n')}\n`;
}

describe('POST /links/import: the same file twice', () => {
  /** A second instance of the service on the same database. */
  let other: FastifyInstance;
  before(async () => {
    ({ app: other } = await startApp(fileScope, database.url));
  });

  /** The two reports agree row by row: created by one, "existing" for the other, the same code. */
  function assertAgree(first: Report, second: Report, rows: number) {
    assert.deepEqual([first.rows, second.rows], [rows, rows]);
    assert.deepEqual([first.results.length, second.results.length], [rows, rows], 'a result per row in each report');
    assert.equal(first.created + second.created, rows, 'each row created once between the two');
    assert.equal(first.existing + second.existing, rows, 'and found existing by the other');
    for (const [i, a] of first.results.entries()) {
      const b = second.results[i] as RowResult;
      assert.equal(a.row, b.row);
      assert.deepEqual([a.status, b.status].sort(), ['created', 'existing'], `row ${a.row}`);
      assert.equal(a.code, b.code, `row ${a.row}: the same link`);
    }
  }

  test('two imports of one file at once, on one instance, create each link once', async () => {
    const { id, keys } = await workspaceWith(database.url, 'together', { admin: 'admin' });
    const csv = generatedFile('together', 40);
    const [first, second] = await Promise.all([importFile(keys.admin, csv), importFile(keys.admin, csv)]);
    assertAgree(first, second, 40);
    assert.equal(await linksIn(id), 40);
  });

  test('two imports at once on two instances: each row created by one and existing for the other, with one code, one link per row', async () => {
    const { id, keys } = await workspaceWith(database.url, 'apart', { admin: 'admin' });
    const csv = generatedFile('apart', 40);
    const [first, second] = await Promise.all([importFile(keys.admin, csv), importFile(keys.admin, csv, other)]);
    assertAgree(first, second, 40);
    assert.equal(await linksIn(id), 40);
  });
});

describe('POST /links/import: rows and what exists', () => {
  test('an alias taken here with the same URL: "existing"; with another URL, or in another workspace: ALIAS_TAKEN', async () => {
    const { id, keys } = await workspaceWith(database.url, 'taken', { admin: 'admin', member: 'member' });
    const { keys: elsewhere } = await workspaceWith(database.url, 'taken-elsewhere', { admin: 'admin' });
    await create(keys.member, { url: 'https://example.com/same', alias: 'taken-same' });
    await create(keys.member, { url: 'https://example.com/a%20b', alias: 'taken-normalised' });
    await create(keys.member, { url: 'https://example.com/first', alias: 'taken-other-url' });
    await create(elsewhere.admin, { url: 'https://example.com/theirs', alias: 'taken-elsewhere' });
    const csv = [
      'url,alias',
      'https://example.com/same,taken-same',
      'HTTPS://Example.COM/a b,taken-normalised',
      'https://example.com/second,taken-other-url',
      'https://example.com/theirs,taken-elsewhere',
      'https://example.com/free,taken-free',
    ].join('\r\n');
    const report = await importFile(keys.admin, csv);
    assert.deepEqual(
      report.results.map(({ row, status, code, error }) => [row, status, code ?? error?.code]),
      [
        [2, 'existing', 'taken-same'],
        [3, 'existing', 'taken-normalised'],
        [4, 'failed', 'ALIAS_TAKEN'],
        [5, 'failed', 'ALIAS_TAKEN'],
        [6, 'created', 'taken-free'],
      ],
    );
    assert.deepEqual([report.created, report.existing, report.failed], [1, 2, 2]);
    assert.equal(await linksIn(id), 4);
    assert.equal(
      (await app.inject({ url: '/taken-other-url' })).headers.location,
      'https://example.com/first',
      'the link is left as it was',
    );
  });

  test('rows are numbered by the line they start on, blank lines and multi-line cells counted; refused rows give their code', async () => {
    const { keys } = await workspaceWith(database.url, 'numbered', { admin: 'admin' });
    const csv =
      'url,title\n\nhttps://example.com/n1,"two\nlines"\nhttps://example.com/n2,after\n\n\nnot a url,x\nhttps://example.com/n3,"=ok"\n';
    const report = await importFile(keys.admin, csv);
    assert.deepEqual(
      report.results.map(({ row, status, error }) => [row, status, error?.code]),
      [
        [3, 'failed', 'TITLE_INVALID'],
        [5, 'created', undefined],
        [8, 'failed', 'URL_NOT_ABSOLUTE'],
        [9, 'created', undefined],
      ],
    );
  });
});

describe('POST /links/import: files refused', () => {
  test('bad files (encoding, CSV, columns, no rows, too many rows, too large, type, format): a 4xx with a stable code each', async () => {
    const { id, keys } = await workspaceWith(database.url, 'refused', { admin: 'admin', viewer: 'viewer' });
    const row = 'https://example.com/refused';
    const manyRows = (n: number) => `url\n${Array.from({ length: n }, (_, i) => `ftp://example.com/${i}`).join('\n')}\n`;
    const cases: [what: string, body: string | Buffer, options: { query?: string; contentType?: string }, status: number, code: string][] =
      [
        [
          'Latin-1',
          Buffer.concat([Buffer.from(`url,title\n${row},caf`), Buffer.from([0xe9]), Buffer.from('\n')]),
          {},
          400,
          'IMPORT_INVALID',
        ],
        ['an unterminated quote', `url,title\n${row},"never closed\n`, {}, 400, 'IMPORT_INVALID'],
        ['no known column', `name,address\nfoo,${row}\n`, {}, 400, 'IMPORT_INVALID'],
        ['a header only', 'url,alias,title\n', {}, 400, 'IMPORT_INVALID'],
        ['a header and blank lines', 'url,alias,title\n\n\n', {}, 400, 'IMPORT_INVALID'],
        ['5001 rows', manyRows(5001), {}, 400, 'IMPORT_INVALID'],
        ['over 5 MiB', `url\n${'x'.repeat(5 * 1024 * 1024)}\n`, {}, 413, 'BODY_TOO_LARGE'],
        ['CSV sent as application/json', `url\n${row}\n`, { contentType: 'application/json' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
        ['CSV sent as text/plain', `url\n${row}\n`, { contentType: 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
        ['CSV in Latin-1 by its charset', `url\n${row}\n`, { contentType: 'text/csv; charset=iso-8859-1' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
        ['format=unknown', `url\n${row}\n`, { query: 'format=unknown' }, 400, 'IMPORT_INVALID'],
        ['format=bitly, a generic file', `url\n${row}\n`, { query: 'format=bitly' }, 400, 'IMPORT_INVALID'],
        [
          'format=generic, a Bitly file',
          readFileSync(new URL('fixtures/bitly.csv', import.meta.url)),
          { query: 'format=generic' },
          400,
          'IMPORT_INVALID',
        ],
        ['another parameter', `url\n${row}\n`, { query: 'format=auto&dryRun=1' }, 400, 'BAD_REQUEST'],
      ];
    const messages = new Map<string, string>();
    for (const [what, body, options, status, code] of cases) {
      const res = await postImport(app, keys.admin, body, options);
      assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 200)}`);
      assert.equal(errorOf(res)?.code, code, what);
      messages.set(what, errorOf(res)?.message ?? '');
    }
    // The messages say why, for the people who sent the file.
    assert.match(messages.get('Latin-1') ?? '', /UTF-8/);
    assert.match(messages.get('5001 rows') ?? '', /5000 rows/);
    assert.match(errorOf(await postImport(app, keys.admin, 'url,alias\n'))?.message ?? '', /no rows/);

    const viewer = await postImport(app, keys.viewer, `url\n${row}\n`);
    assert.deepEqual([viewer.statusCode, errorOf(viewer)?.code], [403, 'ROLE_FORBIDDEN']);
    const anonymous = await postImport(app, undefined, `url\n${row}\n`);
    assert.deepEqual([anonymous.statusCode, errorOf(anonymous)?.code], [401, 'API_KEY_REQUIRED']);
    assert.equal(await linksIn(id), 0);
  });

  test('5000 rows in exactly 5 MiB are read, each row answered; one byte more is 413', async () => {
    const { id, keys } = await workspaceWith(database.url, 'at-the-limits', { admin: 'admin' });
    const size = 5 * 1024 * 1024;
    // Rows without a URL, their bytes in a column no format reads: each row fails on its own, at once.
    const header = 'url,padding\n';
    const rows = Array.from({ length: 5000 }, (_, i) => `,${String(i).padStart(1040, '0')}\n`);
    const csv = header + rows.join('') + '\n'.repeat(size - header.length - rows.join('').length);
    assert.equal(Buffer.byteLength(csv), size);
    const report = await importFile(keys.admin, csv);
    assert.deepEqual([report.rows, report.created, report.failed], [5000, 0, 5000]);
    assert.deepEqual(new Set(report.results.map((result) => result.error?.code)), new Set(['IMPORT_ROW_INVALID']));
    assert.deepEqual([report.results[0]?.row, report.results[4999]?.row], [2, 5001]);
    const over = await postImport(app, keys.admin, `${csv}\n`);
    assert.deepEqual([over.statusCode, errorOf(over)?.code], [413, 'BODY_TOO_LARGE']);
    assert.equal(await linksIn(id), 0);
  });

  test('a JSON body is refused (415), whatever it holds', async () => {
    const { id, keys } = await workspaceWith(database.url, 'json-body', { admin: 'admin' });
    for (const payload of [{}, { header: ['url'], records: [{ line: 2, fields: ['https://example.com/json'] }] }]) {
      const res = await postImport(app, keys.admin, JSON.stringify(payload), { contentType: 'application/json' });
      assert.deepEqual([res.statusCode, errorOf(res)?.code], [415, 'UNSUPPORTED_MEDIA_TYPE'], res.body);
    }
    assert.equal(await linksIn(id), 0);
  });
});

describe('GET /links/export.csv', () => {
  let keys: Record<'boss' | 'Ops, "night" team' | 'reader', CreatedKey>;
  let workspaceId: number;
  /** e1 … e6, oldest first. */
  const code = {} as Record<'e1' | 'e2' | 'e3' | 'e4' | 'e5' | 'e6', string>;

  before(async () => {
    ({ id: workspaceId, keys } = await workspaceWith(database.url, 'export', {
      boss: 'admin',
      'Ops, "night" team': 'member',
      reader: 'viewer',
    }));
    const { boss } = keys;
    const member = keys['Ops, "night" team'];
    const inAMonth = new Date(Date.now() + 30 * 86_400_000).toISOString();
    code.e1 = await create(boss, { url: 'https://example.com/e1', title: 'Sale, "big" one', tags: ['spring', 'sale'] });
    code.e2 = await create(member, {
      url: 'https://example.com/e2',
      title: '=HYPERLINK("https://evil.example")',
      tags: ['+1', 'plain', '@home'],
    });
    code.e3 = await create(boss, { url: 'https://example.com/e3?a=1,2', title: 'to be replaced' });
    code.e4 = await create(member, { url: 'https://example.com/e4', title: '-5% today', tags: ['-minus'], expiresAt: inAMonth });
    code.e5 = await create(boss, { url: 'https://example.com/e5', tags: ['@at'], expiresAt: inAMonth });
    code.e6 = await create(boss, { url: 'https://example.com/e6', alias: 'export-alias' });
    // The API refuses a title with a line break and a past expiry; older rows may hold them all the same.
    await pool.query(`UPDATE links SET title = E'line one\\nline two' WHERE code = $1`, [code.e3]);
    await pool.query(`UPDATE links SET expires_at = now() - interval '1 day' WHERE code = $1`, [code.e5]);
    const disabled = await app.inject({ method: 'PATCH', url: `/links/${code.e4}`, headers: bearer(member), payload: { disabled: true } });
    assert.equal(disabled.statusCode, 200);
    const totals: [string, number, number][] = [
      [code.e1, 12, 3],
      [code.e3, 7, 0],
      [code.e4, 1, 1],
      [code.e6, 99, 5],
    ];
    for (const [c, clicks, bots] of totals) {
      const { rowCount } = await pool.query('UPDATE link_totals SET clicks = $2, bot_clicks = $3 WHERE code = $1', [c, clicks, bots]);
      assert.equal(rowCount, 1);
    }
    const { keys: stranger } = await workspaceWith(database.url, 'export-elsewhere', { admin: 'admin' });
    await create(stranger.admin, { url: 'https://example.com/not-exported', title: 'Sale elsewhere', tags: ['spring'] });
  });

  const named = (codes: string[]) => codes.map((c) => Object.entries(code).find(([, value]) => value === c)?.[0] ?? c);

  test('text/csv attachment: one row per link of the workspace, newest first, with totals; text intact, formulas defused', async () => {
    const { res, records, codes } = await exportCsv(keys.reader);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="links-[^"]*\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.ok(res.body.startsWith(`${EXPORT_HEADER.join(',')}\r\n`), 'the header is the first line, as written');
    // Quoted when a cell holds a line break, a comma or a quote; its quotes doubled.
    assert.ok(res.body.includes(',"line one\nline two",'), 'a title with a line break');
    assert.ok(res.body.includes(',"Sale, ""big"" one",'), 'a title with a comma and quotes');
    assert.ok(res.body.includes(',"Ops, ""night"" team",\r\n'), 'a creator with a comma and quotes (a plain link: no options after it)');

    assert.deepEqual(named(codes), ['e6', 'e5', 'e4', 'e3', 'e2', 'e1']);
    const expected: Record<string, Record<string, string>> = {
      e1: { title: 'Sale, "big" one', tags: 'spring|sale', disabled: 'false', clicks: '12', botClicks: '3', creator: 'boss' },
      e2: {
        title: `'=HYPERLINK("https://evil.example")`,
        tags: `'+1|plain|'@home`,
        disabled: 'false',
        clicks: '0',
        botClicks: '0',
        creator: 'Ops, "night" team',
      },
      e3: { title: 'line one\nline two', tags: '', disabled: 'false', clicks: '7', botClicks: '0', creator: 'boss' },
      e4: { title: "'-5% today", tags: "'-minus", disabled: 'true', clicks: '1', botClicks: '1', creator: 'Ops, "night" team' },
      e5: { title: '', tags: "'@at", disabled: 'false', clicks: '0', botClicks: '0', creator: 'boss' },
      e6: { title: '', tags: '', disabled: 'false', clicks: '99', botClicks: '5', creator: 'boss' },
    };
    for (const record of records) {
      const [name] = named([record.code ?? '']);
      const link = await details(keys.reader, record.code ?? '');
      assert.deepEqual(
        record,
        {
          code: link.code,
          domain: 'sho.rt',
          shortUrl: `https://sho.rt/${link.code}`,
          url: link.url,
          createdAt: link.createdAt,
          expiresAt: link.expiresAt ?? '',
          options: '',
          ...expected[name as string],
        },
        name,
      );
    }
    assert.equal(records.find((record) => record.code === code.e3)?.url, 'https://example.com/e3?a=1,2', 'a URL with a comma');
    assert.ok(records.every((record) => /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(record.createdAt ?? '')));
    assert.match(records.find((record) => record.code === code.e4)?.expiresAt ?? '', /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  });

  test('the filters of GET /links apply: q, tag, state, creator, and together; a cursor or a limit is refused', async () => {
    const member = keys['Ops, "night" team'];
    const cases: [query: string, expected: string[]][] = [
      ['q=HYPERLINK', ['e2']],
      [`q=${encodeURIComponent('sale, "big')}`, ['e1']],
      ['q=example.com/e', ['e6', 'e5', 'e4', 'e3', 'e2', 'e1']],
      ['tag=spring', ['e1']],
      ['tag=%40at', ['e5']],
      ['state=active', ['e6', 'e3', 'e2', 'e1']],
      ['state=expired', ['e5']],
      ['state=disabled', ['e4']],
      [`creator=${member.id}`, ['e4', 'e2']],
      [`creator=${member.id}&state=active`, ['e2']],
      [`creator=${keys.boss.id}&q=example.com/e&state=active`, ['e6', 'e3', 'e1']],
    ];
    for (const [query, expected] of cases) {
      const { codes } = await exportCsv(keys.reader, query);
      assert.deepEqual(named(codes), expected, query);
      const listed = await app.inject({ url: `/links?${query}`, headers: bearer(keys.reader) });
      assert.deepEqual(
        listed.json<{ links: { code: string }[] }>().links.map((link) => link.code),
        codes,
        `${query}: as GET /links lists them`,
      );
    }
    for (const query of ['state=gone', 'q=ab', 'tag=a&tag=b', 'cursor=abc', 'limit=5', 'sort=clicks']) {
      const res = await app.inject({ url: `/links/export.csv?${query}`, headers: bearer(keys.reader) });
      assert.deepEqual([res.statusCode, errorOf(res)?.code], [400, 'LIST_QUERY_INVALID'], query);
    }
    const anonymous = await app.inject({ url: '/links/export.csv' });
    assert.deepEqual([anonymous.statusCode, errorOf(anonymous)?.code], [401, 'API_KEY_REQUIRED']);
    assert.equal(await linksIn(workspaceId), 6);
  });

  test('2500 links are all streamed, once each, across the pages of 1000 the export reads', async () => {
    const { id, keys: bulk } = await workspaceWith(database.url, 'export-bulk', { reader: 'viewer' });
    const inserted = await pool.query(
      `INSERT INTO links (code, url, workspace_id, title, tags)
       SELECT 'bulk' || lpad(i::text, 5, '0'), 'https://example.com/bulk/' || i, $1, 'Bulk, ' || i, ARRAY['bulk', 'n' || (i % 3)]
       FROM generate_series(1, 2500) AS i`,
      [id],
    );
    assert.equal(inserted.rowCount, 2500);
    const { res, records, codes } = await exportCsv(bulk.reader);
    assert.equal(res.headers['transfer-encoding'], 'chunked', 'streamed, not built in memory first');
    assert.equal(records.length, 2500);
    // One statement: one created_at; the code orders them.
    const expected = Array.from({ length: 2500 }, (_, i) => `bulk${String(2500 - i).padStart(5, '0')}`);
    assert.deepEqual(codes, expected);
    assert.deepEqual(records[1234], {
      code: 'bulk01266',
      domain: 'sho.rt',
      shortUrl: 'https://sho.rt/bulk01266',
      url: 'https://example.com/bulk/1266',
      title: 'Bulk, 1266',
      tags: 'bulk|n0',
      createdAt: records[0]?.createdAt,
      expiresAt: '',
      disabled: 'false',
      clicks: '0',
      botClicks: '0',
      creator: '',
      options: '',
    });
    const { codes: n1 } = await exportCsv(bulk.reader, 'tag=n1');
    assert.deepEqual(
      n1,
      expected.filter((c) => Number(c.slice(4)) % 3 === 1),
    );
    assert.equal(n1.length, 834);
  });
});

describe('export, then import elsewhere', () => {
  let second: TestDatabase;
  /** The service on the second database. */
  let elsewhere: FastifyInstance;
  const closeElsewhere: (() => Promise<void>)[] = [];
  before(async () => {
    second = await createTestDatabase('import_export_2');
    ({ app: elsewhere } = await startApp({ after: (fn) => closeElsewhere.push(fn) }, second.url));
  });
  after(async () => {
    for (const fn of closeElsewhere) await fn();
    await second.drop();
  });

  test('a workspace exported, then imported into another database, has the same codes, URLs, titles, tags and expiries', async () => {
    const { keys } = await workspaceWith(database.url, 'roundtrip', { admin: 'admin' });
    const { keys: there } = await workspaceWith(second.url, 'arrivals', { admin: 'admin' });
    const inAMonth = new Date(Date.now() + 30 * 86_400_000 + 123).toISOString();
    const made = [
      await create(keys.admin, {
        url: 'https://shop.example/sale?a=1&b=2,3',
        alias: 'rt-sale',
        title: 'Sale, "big" one — Frühling',
        tags: ['spring', 'Sale 2027'],
        expiresAt: '2027-06-30T23:59:59.000Z',
      }),
      await create(keys.admin, { url: 'https://example.com/formula', title: '=SUM(A1:A9)', tags: ['+plus', 'plain', '-minus', '@at'] }),
      await create(keys.admin, { url: 'https://example.com/plain', expiresAt: inAMonth }),
      await create(keys.admin, { url: 'https://example.com/at', alias: 'rt_at-sign', title: '@mention', tags: ['ünïcode', "it's"] }),
      await create(keys.admin, { url: 'https://example.com/minus', title: '-10% today', tags: ['=eq'] }),
      await create(keys.admin, { url: 'https://example.com/quote', title: 'a "quoted" word', tags: ['tab?', 'semi;colon'] }),
    ];
    const exported = await exportCsv(keys.admin);
    assert.deepEqual([...exported.codes].sort(), [...made].sort());

    const [back, report] = await Promise.all([
      // Imported back where it came from: every row is the link it describes.
      importFile(keys.admin, exported.res.body),
      importFile(there.admin, exported.res.body, elsewhere),
    ]);
    assert.deepEqual(
      back.results.map(({ status, code }) => [status, code]),
      exported.codes.map((c) => ['existing', c]),
    );
    assert.deepEqual(
      report.results.map(({ row, status, code }) => [row, status, code]),
      exported.codes.map((c, i) => [i + 2, 'created', c]),
    );

    const fields = (link: Link) => [link.code, link.url, link.title, link.tags, link.expiresAt];
    for (const c of made) {
      assert.deepEqual(fields(await details(there.admin, c, elsewhere)), fields(await details(keys.admin, c)), c);
    }
    const again = await exportCsv(there.admin, '', elsewhere);
    const columns = (records: Record<string, string>[]) =>
      records
        .map((record) => [record.code, record.shortUrl, record.url, record.title, record.tags, record.expiresAt])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(columns(again.records), columns(exported.records));
    assert.equal(again.records.length, 6);
  });

  test("a title or tag that itself starts with ' and a formula character survives the round trip", async () => {
    const { keys } = await workspaceWith(database.url, 'roundtrip-quote', { admin: 'admin' });
    const { keys: there } = await workspaceWith(second.url, 'arrivals-quote', { admin: 'admin' });
    const c = await create(keys.admin, {
      url: 'https://example.com/quote-first',
      alias: 'quote-first',
      title: "'=not a formula",
      tags: ["'+1"],
    });
    const exported = await exportCsv(keys.admin);
    // The text's own ' gets the guard too, so that the import can tell the two apart.
    assert.deepEqual([exported.records[0]?.title, exported.records[0]?.tags], ["''=not a formula", "''+1"]);
    await importFile(there.admin, exported.res.body, elsewhere);
    const arrived = await details(there.admin, c, elsewhere);
    assert.deepEqual([arrived.title, arrived.tags], ["'=not a formula", ["'+1"]]);
  });

  test("a link's options go out as JSON in the options column and come back; a cell that is no JSON object, or bad options, fail their row", async () => {
    const { keys } = await workspaceWith(database.url, 'roundtrip-options', { admin: 'admin' });
    const { keys: there } = await workspaceWith(second.url, 'arrivals-options', { admin: 'admin' });
    const options = {
      redirectStatus: 308,
      forwardQuery: true,
      targets: [{ when: { device: ['android'], language: ['pt-br'] }, url: 'https://example.com/pt' }],
      split: [
        { url: 'https://example.com/a', weight: 40 },
        { url: 'https://example.com/b', weight: 60 },
      ],
    };
    const c = await create(keys.admin, { url: 'https://example.com/with-options', alias: 'with-options', options });
    const plain = await create(keys.admin, { url: 'https://example.com/plain', alias: 'plain-options' });
    const exported = await exportCsv(keys.admin);
    const byCode = new Map(exported.records.map((r) => [r.code, r]));
    assert.deepEqual(JSON.parse(byCode.get(c)?.options ?? ''), options);
    assert.equal(byCode.get(plain)?.options, '');
    const report = await importFile(there.admin, exported.res.body, elsewhere);
    assert.equal(report.created, 2, JSON.stringify(report.results));
    assert.deepEqual((await details(there.admin, c, elsewhere)).options, options);
    assert.equal((await details(there.admin, plain, elsewhere)).options, null);
    // Followed on the other deployment: its status and forwarded query.
    const followed = await elsewhere.inject({ url: `/${c}?x=1` });
    assert.equal(followed.statusCode, 308);

    const csv = [
      'url,alias,options',
      'https://example.com/o1,opt-bad-json,{not json',
      'https://example.com/o2,opt-array,"[1,2]"',
      'https://example.com/o3,opt-bad-status,"{""redirectStatus"":303}"',
      'https://example.com/o4,opt-good,"{""forwardQuery"":true}"',
    ].join('\n');
    const rows = await importFile(there.admin, csv, elsewhere);
    assert.deepEqual(
      rows.results.map(({ row, status, error }) => [row, status, error?.code]),
      [
        [2, 'failed', 'IMPORT_ROW_INVALID'],
        [3, 'failed', 'IMPORT_ROW_INVALID'],
        [4, 'failed', 'REDIRECT_STATUS_INVALID'],
        [5, 'created', undefined],
      ],
    );
    assert.deepEqual((await details(there.admin, 'opt-good', elsewhere)).options, { forwardQuery: true });
  });
});
