// GET /links/:code/qr: the QR code of a link's short URL, SVG or PNG. Both images are read back
// module by module and compared with the symbol the qrcode library makes for the short URL.

import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { inflateSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import { qrMatrix, qrPng } from '../../src/links/qr-image.ts';
import { qrOptionsOf } from '../../src/links/qr-routes.ts';
import { bearer, createLink, startApp, TEST_BASE_URL } from '../helpers/app.ts';
import { createTestDatabase, insertRawLinks, withClient, type TestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/wait.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('qr');
  await insertRawLinks(database.url, ['qr-off']);
  await withClient(database.url, (client) => client.query("UPDATE links SET disabled = true WHERE code = 'qr-off'"));
});
after(() => database.drop());

/** The dark modules the library puts in the symbol of `text`, as rows of 0 and 1. */
function expected(text: string, level: 'L' | 'M' | 'Q' | 'H' = 'M'): number[][] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: level });
  return Array.from({ length: modules.size }, (_, row) => Array.from({ length: modules.size }, (_cell, col) => modules.get(row, col)));
}

/** The modules of one of our SVGs: each `M x y h w v1 h-w z` is a run of dark modules. */
function svgModules(svg: string, margin: number): number[][] {
  const side = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1]);
  const size = side - 2 * margin;
  const rows = Array.from({ length: size }, () => Array.from({ length: size }, () => 0));
  const dark = /<path fill="#000" d="([^"]*)"\/>/.exec(svg)?.[1] ?? '';
  for (const [, x, y, w] of dark.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) {
    for (let col = Number(x); col < Number(x) + Number(w); col++) rows[Number(y) - margin]![col - margin] = 1;
  }
  return rows;
}

/** Width, height and the grey value (0 or 1) of every pixel of a 1-bit greyscale PNG. */
function readPng(png: Buffer): { width: number; height: number; pixel: (x: number, y: number) => number } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(png.toString('latin1', 12, 16), 'IHDR');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  assert.deepEqual([png[24], png[25], png[28]], [1, 0, 0], '1-bit greyscale, not interlaced');
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const rowBytes = 1 + Math.ceil(width / 8);
  assert.equal(raw.length, rowBytes * height);
  return { width, height, pixel: (x, y) => ((raw[y * rowBytes + 1 + (x >> 3)] ?? 0) >> (7 - (x & 7))) & 1 };
}

/** The modules of a PNG, read at the centre of each module (1: dark). */
function pngModules(png: Buffer, modules: number, margin: number): number[][] {
  const { width, pixel } = readPng(png);
  const side = modules + 2 * margin;
  const at = (module: number) => Math.floor(((module + margin + 0.5) * width) / side);
  return Array.from({ length: modules }, (_, row) => Array.from({ length: modules }, (_cell, col) => 1 - pixel(at(col), at(row))));
}

describe('the route', () => {
  let app: FastifyInstance;
  let code: string;
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const fn of cleanups) await fn();
  });
  before(async () => {
    ({ app } = await startApp({ after: (fn) => cleanups.push(fn) }, database.url, {
      NOT_FOUND_LIMIT_PER_MINUTE: '3',
      DOMAIN_VERIFICATION: 'false',
    }));
    const created = await createLink(app, { url: 'https://example.com/poster' });
    assert.equal(created.status, 201);
    code = String(created.body.code);
  });

  test('an SVG by default, of the short URL marked as a scan (?qr=1), that browsers and CDNs may keep', async () => {
    const res = await app.inject({ url: `/links/${code}/qr` });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/svg+xml');
    assert.equal(res.headers['cache-control'], 'public, max-age=86400, immutable');
    assert.equal(res.headers.vary, 'accept');
    assert.match(
      res.body,
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="256" height="256" viewBox="0 0 \d+ \d+"[^>]*>.*<\/svg>$/s,
    );
    assert.deepEqual(svgModules(res.body, 4), expected(`${TEST_BASE_URL}/${code}?qr=1`));
  });

  test('a link on a branded domain: the QR code of its own short URL, by ?domain=; the same alias on the default domain has its own', async () => {
    const { admin } = await keysWith(database.url, { admin: 'admin' });
    const headers = bearer(admin);
    assert.equal((await app.inject({ method: 'POST', url: '/domains', headers, payload: { host: 'qr.example.com' } })).statusCode, 201);
    for (const domain of ['qr.example.com', undefined]) {
      const made = await app.inject({
        method: 'POST',
        url: '/links',
        headers,
        payload: { url: 'https://example.com/poster', alias: 'poster', domain },
      });
      assert.equal(made.statusCode, 201, made.body);
    }
    const branded = await app.inject({ url: '/links/poster/qr?domain=qr.example.com' });
    assert.deepEqual(svgModules(branded.body, 4), expected('https://qr.example.com/poster?qr=1'));
    const plain = await app.inject({ url: '/links/poster/qr' });
    assert.deepEqual(svgModules(plain.body, 4), expected(`${TEST_BASE_URL}/poster?qr=1`));
    const unknown = await app.inject({ url: '/links/poster/qr?domain=nowhere.example.com' });
    assert.equal(unknown.statusCode, 404);
  });

  test('a PNG with ?format=png or when Accept prefers it, of the requested size, margin and level', async () => {
    const png = await app.inject({ url: `/links/${code}/qr?format=png&size=300&margin=2&level=H` });
    assert.equal(png.statusCode, 200);
    assert.equal(png.headers['content-type'], 'image/png');
    const { width, height } = readPng(png.rawPayload);
    assert.deepEqual([width, height], [300, 300]);
    const symbol = expected(`${TEST_BASE_URL}/${code}?qr=1`, 'H');
    assert.deepEqual(pngModules(png.rawPayload, symbol.length, 2), symbol);

    const accepted = await app.inject({ url: `/links/${code}/qr`, headers: { accept: 'image/png' } });
    assert.equal(accepted.headers['content-type'], 'image/png');
    assert.deepEqual(readPng(accepted.rawPayload).width, 256);
    assert.deepEqual(
      pngModules(accepted.rawPayload, expected(`${TEST_BASE_URL}/${code}?qr=1`).length, 4),
      expected(`${TEST_BASE_URL}/${code}?qr=1`),
    );
    const svgPreferred = await app.inject({ url: `/links/${code}/qr`, headers: { accept: 'image/png;q=0.5, image/svg+xml' } });
    assert.equal(svgPreferred.headers['content-type'], 'image/svg+xml');
    const browser = await app.inject({ url: `/links/${code}/qr`, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(browser.headers['content-type'], 'image/svg+xml');
  });

  test('bad options are 400 QR_OPTIONS_INVALID', async () => {
    for (const query of ['format=gif', 'size=63', 'size=2049', 'size=abc', 'size=1e3', 'margin=17', 'margin=-1', 'level=X']) {
      const res = await app.inject({ url: `/links/${code}/qr?${query}` });
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json<{ error: { code: string } }>().error.code, 'QR_OPTIONS_INVALID', query);
    }
    // Fewer than two pixels per module would drop modules: refused rather than answered unscannable.
    const tooSmall = await app.inject({ url: `/links/${code}/qr?size=64&format=png&level=H&margin=16` });
    assert.equal(tooSmall.statusCode, 400);
    assert.match(tooSmall.json<{ error: { message: string } }>().error.message, /size must be at least \d+ pixels/);
    assert.equal((await app.inject({ url: `/links/${code}/qr?size=64&format=png&margin=0` })).statusCode, 200);
    assert.equal((await app.inject({ url: `/links/${code}/qr?size=2048&margin=0` })).statusCode, 200);
  });

  test("no QR code for an unknown code (404) or a disabled link (410); 404s spend the client's 404 budget", async () => {
    const from = { remoteAddress: '203.0.113.50' };
    const disabled = await app.inject({ url: '/links/qr-off/qr', ...from });
    assert.equal(disabled.statusCode, 410);
    assert.equal(disabled.json<{ error: { code: string } }>().error.code, 'LINK_DISABLED');
    for (const unknown of ['nosuchcode', 'no.such.code', 'ZZZZZZZ']) {
      const res = await app.inject({ url: `/links/${unknown}/qr`, ...from });
      assert.equal(res.statusCode, 404, unknown);
      assert.equal(res.json<{ error: { code: string } }>().error.code, 'LINK_NOT_FOUND');
    }
    const limited = await app.inject({ url: '/links/another1/qr', ...from });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json<{ error: { code: string } }>().error.code, 'NOT_FOUND_RATE_LIMITED');
    assert.equal(limited.headers['retry-after'], '20');
    assert.equal((await app.inject({ url: '/another2', ...from })).statusCode, 429, 'the same budget as redirects');
    assert.equal((await app.inject({ url: `/links/${code}/qr`, ...from })).statusCode, 200, 'a link still gets its QR code');
  });
});

describe('the image', () => {
  test('options: the query first, else Accept; defaults 256 px, margin 4, level M', () => {
    assert.deepEqual(qrOptionsOf({}, undefined), { format: 'svg', size: 256, margin: 4, level: 'M' });
    assert.equal(qrOptionsOf({ format: 'svg' }, 'image/png').format, 'svg');
    assert.equal(qrOptionsOf({}, 'image/*').format, 'svg');
    assert.equal(qrOptionsOf({}, 'image/webp, image/png;q=0.9, */*;q=0.1').format, 'png');
    assert.equal(qrOptionsOf({}, 'image/svg+xml;q=0, */*').format, 'png');
  });

  test('a 2048 px PNG is compressed off the event loop: it is not ready before the event loop turns', async () => {
    const matrix = qrMatrix(`${TEST_BASE_URL}/XArj78D`, 'Q');
    // In a promise job from here: the nextTick below runs once every queued job has run.
    await Promise.resolve();
    let ready = false;
    const png = qrPng(matrix, 2048, 4).then((buffer) => {
      ready = true;
      return buffer;
    });
    await new Promise((resolve) => process.nextTick(resolve));
    // An encoder that compressed on the event loop would be done by now; zlib's thread pool answers on a later turn.
    assert.equal(ready, false, 'the PNG was ready before the event loop turned');
    assert.equal(readPng(await png).width, 2048);
  });

  test('five 2048 px PNGs at once hold up the event loop for tens of ms at most (a blocking renderer: hundreds)', async () => {
    const matrix = qrMatrix(`${TEST_BASE_URL}/XArj78D`, 'Q');
    await qrPng(matrix, 2048, 4); // warm up
    // Sampled by a timer: a stall shows as one late sample, the first taken after it ends. A sample
    // is the time since the one before, so one must have been taken before the encoders start.
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const sampled = (past: number) => until('an event-loop delay sample', async () => delay.count > past, 1000);
    await sampled(0);
    const samplesBefore = delay.count;
    const pngs = await Promise.all(Array.from({ length: 5 }, () => qrPng(matrix, 2048, 4)));
    await sampled(samplesBefore);
    delay.disable();
    assert.equal(readPng(pngs[0]!).width, 2048);
    // Here five take about 20 ms in all; qrcode's own renderer blocked for 250 ms or more for one.
    const longest = delay.max / 1e6;
    assert.ok(longest < 100, `longest stall ${longest.toFixed(1)} ms`);
  });
});
