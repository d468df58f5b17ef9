import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { readExpiry } from '../../src/links/import-cells.ts';
import {
  detectFormat,
  headerProblem,
  IMPORT_FORMATS,
  readRecords,
  type ImportedLink,
  type ImportFormat,
  type ImportRecord,
  type RowVerdict,
} from '../../src/links/import-formats.ts';
import { invalidCodeNote as invalid, reservedCodeNote as reserved } from '../helpers/import-notes.ts';
import { parseCsv, type CsvFile } from '../../src/links/csv-file.ts';

/** Far above the rows of any file here. */
const ROWS = 1000;

/** A CSV file parsed by the import route's own parser (src/api/csv.ts). */
async function fixture(name: string): Promise<CsvFile> {
  return parseCsv(readFileSync(new URL(`../links/fixtures/${name}`, import.meta.url)), ROWS);
}

async function read(format: ImportFormat, text: string): Promise<RowVerdict[]> {
  const { header, records } = await parseCsv(Buffer.from(text), ROWS);
  return readRecords(format, header, records);
}

const ok = (line: number, link: ImportedLink, note?: string): RowVerdict =>
  note === undefined ? { ok: true, line, link } : { ok: true, line, link, note };

const SERVICE_FORMATS = IMPORT_FORMATS.filter((format) => format !== 'generic');

const FIXTURES: { file: string; format: ImportFormat; rows: RowVerdict[] }[] = [
  {
    file: 'generic.csv',
    format: 'generic',
    rows: [
      ok(2, {
        url: 'https://shop.example/sale?utm_source=newsletter&utm_medium=email&utm_campaign=spring_2027',
        alias: 'spring-sale',
        expiresAt: '2027-06-30T23:59:59Z',
        tags: ['marketing', 'spring-2027'],
        title: 'Spring sale, up to 50% off',
      }),
      ok(3, { url: 'https://example.com/blog/how-we-ship' }),
      ok(4, {
        url: 'https://example.org/carte/%C3%A9t%C3%A9?lang=fr',
        alias: 'cafe-menu',
        tags: ['food', 'paris'],
        title: 'Café Crème — carte d’été',
      }),
      ok(5, { url: 'https://example.com/hello', title: 'Alias too short' }, invalid('hi')),
      ok(6, { url: 'https://example.org/documentation', title: 'Reserved word' }, reserved('docs')),
      // Already past: the API refuses it later, as it would any other past expiry.
      ok(7, {
        url: 'https://example.com/launch',
        alias: 'launch-2025',
        expiresAt: '2025-01-01T00:00:00+01:00',
        tags: ['launch'],
        title: 'Already expired',
      }),
      ok(8, {
        url: 'https://example.com/summer',
        alias: 'summer_2027',
        expiresAt: '2027-12-31T23:59:59.000+02:00',
        tags: ['campaign', 'summer'],
        title: 'The "Summer" edit',
      }),
      // The same alias twice in one file: the second create meets the first's, as it would an older link's.
      ok(9, { url: 'https://example.org/events/spring', alias: 'spring-sale', title: '春のイベント' }),
      { ok: false, line: 10, message: 'no URL in column "url"' },
      {
        ok: false,
        line: 12,
        message: 'column "expiresAt": "next friday" is not a date (expected e.g. 2027-06-30T23:59:59Z)',
      },
    ],
  },
  {
    file: 'bitly.csv',
    format: 'bitly',
    rows: [
      ok(2, {
        url: 'https://shop.example/sale?utm_source=bitly&utm_medium=social&utm_campaign=spring_2025&utm_content=hero%2Cbanner',
        alias: 'spring-sale-2025',
        title: 'Spring sale, up to 50% off',
      }),
      ok(3, { url: 'https://example.com/blog/how-we-ship', alias: '3Xy9ZqR' }),
      ok(4, { url: 'https://example.org/carte/%C3%A9t%C3%A9?lang=fr', alias: 'cafe', title: 'Café Crème — carte d’été' }),
      // The custom back-half is refused; the generated one still reaches the same page, so it is kept.
      ok(
        5,
        { url: 'https://example.com/hello', alias: '3Qw7TtY', title: 'Hi there' },
        invalid('hi', 'kept "3Qw7TtY" from column "Link" instead'),
      ),
      ok(6, { url: 'https://example.org/events/spring', alias: '49mNbV1', title: '春のイベント' }),
      ok(7, {
        url: 'https://shop.example/collections/summer?sort=new&view=grid&utm_source=bitly',
        alias: 'The_Summer_Edit',
        title: 'The "Summer" edit',
      }),
      ok(8, {
        url: 'https://shop.example/deals?category=electronics&sort=price_asc&page=2&utm_campaign=black_friday_2025',
        alias: '3Rt5UvW',
        title: 'Black Friday 2025',
      }),
    ],
  },
  {
    file: 'yourls.csv',
    format: 'yourls',
    rows: [
      ok(2, { url: 'https://example.com/summer', alias: 'Summer2026' }),
      ok(3, { url: 'https://example.com/launch' }, invalid('✨')),
      ok(4, { url: 'https://example.org/documentation' }, reserved('docs')),
      ok(5, { url: 'https://shop.example/sale?utm_source=newsletter&utm_medium=email&utm_campaign=spring_2026', alias: 'spring-sale' }),
      ok(6, { url: 'https://shop.example/cart?coupon=SPRING,SUMMER' }, invalid('a7')),
      ok(7, { url: 'https://example.org/docs/getting-started' }, invalid('2')),
      ok(8, { url: 'https://example.com/' }, invalid('1')),
    ],
  },
  {
    file: 'yourls-db.csv',
    format: 'yourls',
    rows: [
      ok(2, { url: 'https://example.com/', title: 'Example Domain' }, invalid('1')),
      ok(3, { url: 'https://example.org/docs/getting-started', title: 'Getting started, step by step' }, invalid('2')),
      ok(4, { url: 'https://shop.example/cart?coupon=SPRING,SUMMER' }, invalid('a7')),
      ok(5, {
        url: 'https://shop.example/sale?utm_source=newsletter&utm_medium=email&utm_campaign=spring_2026',
        alias: 'spring-sale',
        title: 'Spring sale – up to 50 % off',
      }),
      ok(6, { url: 'https://example.org/documentation' }, reserved('docs')),
      ok(7, { url: 'https://example.com/launch', title: 'Lancement : nouveautés d’été ✨' }, invalid('✨')),
      ok(8, { url: 'https://example.com/summer', alias: 'Summer2026', title: 'The "Summer" edit' }),
    ],
  },
  {
    file: 'kutt.csv',
    format: 'kutt',
    rows: [
      ok(2, {
        url: 'https://shop.example/sale?utm_source=newsletter&utm_medium=email&utm_campaign=spring_2025',
        alias: 'spring-sale',
        expiresAt: '2027-06-30T23:59:59Z',
        title: 'Spring sale, up to 50% off',
      }),
      ok(3, { url: 'https://example.com/blog/how-we-ship?ref=kutt&utm_source=twitter&utm_medium=social', alias: 'x7Kp2Q' }),
      ok(4, { url: 'https://example.com/about', title: 'About us' }, invalid('ab')),
      ok(5, { url: 'https://example.org/docs/guia-rapido', title: 'Documentação — guia rápido' }, reserved('docs')),
      ok(6, { url: 'https://shop.example/collections/summer', alias: 'Summer_Sale-2025', title: 'The "Summer" edit' }),
      ok(7, { url: 'https://example.net/menu', alias: 'menu', expiresAt: '2025-12-31T23:59:59Z' }),
    ],
  },
  {
    file: 'shlink.csv',
    format: 'shlink',
    rows: [
      ok(2, {
        url: 'https://shop.example/sale?utm_source=newsletter&utm_medium=email&utm_campaign=spring_2025&utm_content=hero,banner',
        alias: 'spring-sale',
        title: 'Spring sale, up to 50% off',
        tags: ['marketing', 'spring-2025'],
      }),
      ok(3, { url: 'https://example.com/blog/how-we-ship', alias: 'Xk9fQ' }),
      ok(4, {
        url: 'https://example.org/carte/%C3%A9t%C3%A9?lang=fr',
        alias: 'cafe-menu',
        title: 'Café Crème — carte d’été',
        tags: ['restaurant'],
      }),
      ok(
        5,
        { url: 'https://shop.example/collections/summer', title: 'The "Summer" edit', tags: ['campaign', 'summer'] },
        invalid('promo/summer'),
      ),
      // The same code on another Shlink domain: one namespace here, so the API will answer that it is taken.
      ok(6, { url: 'https://example.org/events/spring', alias: 'spring-sale', title: '春のイベント' }),
      ok(7, { url: 'https://example.com/about', title: 'About us' }, invalid('ab')),
      ok(8, { url: 'https://example.com/caf%C3%A9', title: 'Café', tags: ['food', 'paris'] }, invalid('café')),
      ok(9, {
        url: 'https://shop.example/deals?category=electronics&sort=price_asc&page=2&utm_source=x&utm_campaign=black_friday_2025',
        alias: 'bf2025',
        title: 'Black Friday 2025',
        tags: ['black friday', 'retail'],
      }),
    ],
  },
  {
    file: 'shlink-old.csv',
    format: 'shlink',
    rows: [
      ok(2, {
        url: 'https://shop.example/sale?utm_source=newsletter&utm_campaign=spring_2023',
        alias: 'spring-sale',
        title: 'Spring sale, up to 50% off',
        tags: ['marketing', 'spring-2023'],
      }),
      ok(3, { url: 'https://example.com/blog/how-we-ship', alias: 'Xk9fQ' }),
      ok(
        4,
        { url: 'https://shop.example/collections/summer', title: 'The "Summer" edit', tags: ['campaign', 'summer'] },
        invalid('promo/summer'),
      ),
      ok(5, { url: 'https://example.com/about', title: 'About us' }, invalid('ab')),
      ok(6, { url: 'https://example.com/caf%C3%A9', title: 'Café', tags: ['food', 'paris'] }, invalid('café')),
    ],
  },
];

describe('import fixtures: one file per exporter', () => {
  for (const { file, format, rows } of FIXTURES) {
    test(`${file} is detected as ${format}, and no other exporter claims its header`, async () => {
      const { header } = await fixture(file);
      assert.equal(detectFormat(header), format);
      assert.equal(headerProblem(format, header), undefined);
      const claimants = SERVICE_FORMATS.filter((other) => headerProblem(other, header) === undefined);
      assert.deepEqual(claimants, format === 'generic' ? [] : [format]);
    });

    test(`${file} gives the exact link, note or refusal of each row`, async () => {
      const { header, records } = await fixture(file);
      assert.deepEqual(readRecords(format, header, records), rows);
    });
  }
});

describe('import headers', () => {
  test('names match whatever their case, spacing, punctuation or BOM', async () => {
    assert.equal(detectFormat(['\uFEFFURL', ' Alias ', 'EXPIRES_AT']), 'generic');
    assert.equal(detectFormat(['\uFEFFcreatedAt', 'domain', 'shortCode', 'shortUrl', 'longUrl', 'title', 'tags', 'visits']), 'shlink');
    assert.equal(detectFormat(['LINK', 'custom link', 'DESTINATION URL']), 'bitly');
    assert.deepEqual(await read('generic', '\uFEFF URL ,ALIAS,ExpiresAt\nhttps://example.com/a,Keep-Me,2027-01-01 00:00:00+0000\n'), [
      ok(2, { url: 'https://example.com/a', alias: 'Keep-Me', expiresAt: '2027-01-01T00:00:00+00:00' }),
    ]);
  });

  test('messages name a column as the file spells it', async () => {
    assert.deepEqual(await read('generic', '\uFEFF URL ,Alias\n,abc\n'), [{ ok: false, line: 2, message: 'no URL in column "URL"' }]);
    assert.deepEqual(readRecords('generic', ['\uFEFFUrl ', 'alias'], [{ line: 3, fields: [' ', 'abc'] }]), [
      { ok: false, line: 3, message: 'no URL in column "Url"' },
    ]);
  });

  test("Bitly's API fields and Shlink's import template are recognised", async () => {
    assert.equal(detectFormat(['id', 'link', 'long_url', 'title', 'created_at']), 'bitly');
    assert.deepEqual(
      await read('shlink', 'Long URL,Short code,Domain,Title,Tags\nhttps://example.com/x,promo-x,s.example.net,X,"a|b,c"\n'),
      [ok(2, { url: 'https://example.com/x', alias: 'promo-x', title: 'X', tags: ['a', 'b,c'] })],
    );
  });

  test('a header no exporter writes is named as none, and each format says what it lacks', () => {
    const header = ['name', 'address line', 'zip'];
    assert.equal(detectFormat(header), undefined);
    assert.equal(detectFormat([]), undefined);
    assert.equal(headerProblem('generic', header), 'a generic file needs a column "url"');
    assert.equal(headerProblem('kutt', header), 'a Kutt file needs a column "target" and a column "address"');
    assert.equal(
      headerProblem('yourls', header),
      'a YOURLS file needs a column "url" and a column "keyword", or a column "target" and a column "source"',
    );
    assert.equal(
      headerProblem('bitly', header),
      'a Bitly file needs a column "Destination URL" or "long_url" and a column "Custom Link" or "Link" or "Bitlink"',
    );
    assert.equal(
      headerProblem('shlink', header),
      'a Shlink file needs a column "longUrl" and a column "shortCode", or a column "longUrl" and a column "shortUrl"',
    );
    assert.throws(() => readRecords('generic', header, []), { message: 'a generic file needs a column "url"' });
  });

  test('a service file read as ours still finds its URLs, without its codes', async () => {
    const { header } = await fixture('yourls-db.csv');
    assert.equal(headerProblem('generic', header), undefined);
    assert.equal(detectFormat(header), 'yourls');
  });
});

describe('import rows', () => {
  test('fully empty lines are skipped; a row of blanks with no URL is not', () => {
    const records: ImportRecord[] = [
      { line: 2, fields: [''] },
      { line: 3, fields: ['', ' ', ''] },
      { line: 4, fields: [] },
      { line: 5, fields: [null, null] },
      { line: 6, fields: ['', 'abc'] },
      { line: 7, fields: [' https://example.com/x '] },
    ];
    assert.deepEqual(readRecords('generic', ['url', 'alias'], records), [
      { ok: false, line: 6, message: 'no URL in column "url"' },
      ok(7, { url: 'https://example.com/x' }),
    ]);
  });

  test('our own export imports back to the same links, whatever other columns it has', async () => {
    const exported = [
      'code,shortUrl,url,title,tags,expiresAt,createdAt,disabled,clicks,botClicks,creator',
      "aB3xK9q,https://sho.rt/aB3xK9q,https://example.com/sum,'=SUM(A1:A3) totals,'-draft|'@team,2027-06-30T23:59:59Z,2025-01-01T00:00:00Z,false,3,1,key:ci",
      "spring,https://sho.rt/spring,https://example.com/spring,'+1 more,ok|'+plus,,2025-01-01T00:00:00Z,true,0,0,",
    ].join('\n');
    assert.deepEqual(await read('generic', exported), [
      ok(2, {
        url: 'https://example.com/sum',
        alias: 'aB3xK9q',
        title: '=SUM(A1:A3) totals',
        tags: ['-draft', '@team'],
        expiresAt: '2027-06-30T23:59:59Z',
      }),
      ok(3, { url: 'https://example.com/spring', alias: 'spring', title: '+1 more', tags: ['ok', '+plus'] }),
    ]);
  });

  test("one formula-escaping ' is removed, in our own files only", () => {
    const titles = (format: ImportFormat, header: string[], cells: string[]) =>
      readRecords(
        format,
        header,
        cells.map((title, i) => ({ line: i + 2, fields: ['https://example.com/', 'abc', title] })),
      ).map((row) => (row.ok ? row.link.title : row.message));
    const cells = ["'=1+1", "'+1", "'-1", "'@me", "'\tx", "'\rx", "''=1", "'quoted'", "it's", "'"];
    assert.deepEqual(titles('generic', ['url', 'alias', 'title'], cells), [
      '=1+1',
      '+1',
      '-1',
      '@me',
      '\tx',
      '\rx',
      "'=1",
      "'quoted'",
      "it's",
      "'",
    ]);
    assert.deepEqual(titles('shlink', ['longUrl', 'shortCode', 'title'], cells.slice(0, 2)), ["'=1+1", "'+1"]);
  });

  test('tags split on "|", else on "," in our files; Shlink by its layout; trimmed, empties dropped', async () => {
    const tags = async (format: ImportFormat, header: string, cell: string) => {
      const [row] = await read(format, `${header}\n${cell}\n`);
      return row?.ok === true ? row.link.tags : row;
    };
    assert.deepEqual(await tags('generic', 'url,tags', 'https://example.com/,"a|b,c"'), ['a', 'b,c']);
    assert.deepEqual(await tags('generic', 'url,tags', 'https://example.com/," a , b ,,c "'), ['a', 'b', 'c']);
    assert.deepEqual(await tags('generic', 'url,tags', 'https://example.com/, | '), undefined);
    assert.deepEqual(await tags('shlink', 'shortCode,longUrl,tags', 'abc,https://example.com/,"black friday|retail, EU"'), [
      'black friday',
      'retail, EU',
    ]);
    assert.deepEqual(await tags('shlink', 'shortUrl,longUrl,tags', 'https://s.example.net/abc,https://example.com/,"a,b|c"'), ['a', 'b|c']);
    assert.deepEqual(await tags('bitly', 'Link,Destination URL,Tags', 'https://bit.ly/abc,https://example.com/,"news, sport"'), [
      'news',
      'sport',
    ]);
  });

  test('titles are trimmed, and an empty or NULL one is left out; a quoted "NULL" is a title', async () => {
    const text = [
      'keyword,url,title',
      'abc,https://example.com/a,"  Hello  "',
      'abd,https://example.com/b,NULL',
      'abe,https://example.com/c,"NULL"',
    ];
    assert.deepEqual(await read('yourls', text.join('\n')), [
      ok(2, { url: 'https://example.com/a', alias: 'abc', title: 'Hello' }),
      ok(3, { url: 'https://example.com/b', alias: 'abd' }),
      ok(4, { url: 'https://example.com/c', alias: 'abe', title: 'NULL' }),
    ]);
  });

  test('codes are taken out of short links however they are written', () => {
    const codes = (cells: string[]) =>
      readRecords(
        'bitly',
        ['Link', 'Destination URL'],
        cells.map((link, i) => ({ line: i + 2, fields: [link, 'https://example.com/'] })),
      ).map((row) => (row.ok ? (row.link.alias ?? row.note) : row.message));
    assert.deepEqual(
      codes([
        'https://bit.ly/3AbCdEf',
        'bit.ly/3AbCdEg',
        '3AbCdEh',
        'https://bit.ly/3AbCdEi/',
        'https://bit.ly/3AbCdEj?utm=x',
        'https://bit.ly/',
        'HTTP://BIT.LY/Caps',
      ]),
      ['3AbCdEf', '3AbCdEg', '3AbCdEh', '3AbCdEi', '3AbCdEj', undefined, 'Caps'],
    );
    assert.deepEqual(codes(['https://go.example.net/a/b', 'https://go.example.net/%E2%9C%A8', 'https://go.example.net/100%']), [
      invalid('a/b'),
      invalid('✨'),
      invalid('100%'),
    ]);
  });

  test('a row can lose several codes; each is named', async () => {
    assert.deepEqual(
      await read('bitly', 'Link,Custom Link,Destination URL\nhttps://bit.ly/ab,https://bit.ly/docs,https://example.com/\n'),
      [
        ok(
          2,
          { url: 'https://example.com/' },
          'code "docs" is a reserved word here; code "ab" is not a valid alias here (3–64 of A-Z a-z 0-9 _ -); a new code will be generated',
        ),
      ],
    );
  });

  test('expiry cells become RFC 3339 with a zone; a cell that is no date refuses the row and names the column', async () => {
    const kutt = [
      'address,target,expire_in',
      'abc,https://example.com/a,2027-06-30 23:59:59',
      'abd,https://example.com/b,NULL',
      'abe,https://example.com/c,soon',
    ];
    assert.deepEqual(await read('kutt', kutt.join('\n')), [
      ok(2, { url: 'https://example.com/a', alias: 'abc', expiresAt: '2027-06-30T23:59:59Z' }),
      ok(3, { url: 'https://example.com/b', alias: 'abd' }),
      { ok: false, line: 4, message: 'column "expire_in": "soon" is not a date (expected e.g. 2027-06-30T23:59:59Z)' },
    ]);
    // Ours has no zone to assume: the time would be hours off.
    assert.deepEqual(await read('generic', 'url,expiresAt\nhttps://example.com/a,2027-06-30 23:59:59\n'), [
      { ok: false, line: 2, message: 'column "expiresAt": "2027-06-30 23:59:59" has no time zone (write e.g. 2027-06-30T23:59:59Z)' },
    ]);
  });
});

describe('import expiry cells', () => {
  const readable: [cell: string, zonelessIsUtc: boolean, expiresAt: string | undefined][] = [
    ['2027-06-30 23:59:59', true, '2027-06-30T23:59:59Z'],
    ['2027-06-30T23:59:59', true, '2027-06-30T23:59:59Z'],
    ['2027-06-30T23:59:59.000Z', false, '2027-06-30T23:59:59.000Z'],
    ['2027-06-30t23:59:59z', false, '2027-06-30T23:59:59Z'],
    ['2025-03-01T09:15:22+0000', false, '2025-03-01T09:15:22+00:00'],
    ['2025-03-01T09:15:22-0430', false, '2025-03-01T09:15:22-04:30'],
    ['2027-06-30 23:59:59+02', false, '2027-06-30T23:59:59+02:00'],
    ['2027-06-30 23:59:59 +05:30', false, '2027-06-30T23:59:59+05:30'],
    ['2024-02-29T12:00:00+01:00', false, '2024-02-29T12:00:00+01:00'],
    [' 2027-06-30T23:59:59Z ', false, '2027-06-30T23:59:59Z'],
    ['', false, undefined],
    ['NULL', false, undefined],
    ['null', true, undefined],
  ];
  for (const [cell, zonelessIsUtc, expiresAt] of readable) {
    test(`reads ${JSON.stringify(cell)}${zonelessIsUtc ? ' (zone-less is UTC)' : ''} as ${expiresAt ?? 'no expiry'}`, () => {
      assert.deepEqual(readExpiry(cell, zonelessIsUtc), { ok: true, expiresAt });
    });
  }

  const refused: [cell: string, zonelessIsUtc: boolean, problem: string][] = [
    ['2027-06-30 23:59:59', false, '"2027-06-30 23:59:59" has no time zone (write e.g. 2027-06-30T23:59:59Z)'],
    ['2027-02-30T10:00:00Z', true, '"2027-02-30T10:00:00Z" is not a date'],
    ['2025-02-29 10:00:00', true, '"2025-02-29 10:00:00" is not a date'],
    ['2027-06-30T24:00:00Z', true, '"2027-06-30T24:00:00Z" is not a date'],
    ['2027-06-30T23:59:59+25:00', true, '"2027-06-30T23:59:59+25:00" is not a date'],
    ['2027-06-30', true, '"2027-06-30" is not a date (expected e.g. 2027-06-30T23:59:59Z)'],
    ['30/06/2027 23:59', true, '"30/06/2027 23:59" is not a date (expected e.g. 2027-06-30T23:59:59Z)'],
    ['1782863999', true, '"1782863999" is not a date (expected e.g. 2027-06-30T23:59:59Z)'],
    ['"NULL"', true, '"\\"NULL\\"" is not a date (expected e.g. 2027-06-30T23:59:59Z)'],
  ];
  for (const [cell, zonelessIsUtc, problem] of refused) {
    test(`refuses ${JSON.stringify(cell)}`, () => {
      assert.deepEqual(readExpiry(cell, zonelessIsUtc), { ok: false, problem });
    });
  }
});
