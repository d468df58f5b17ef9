// A QR code's modules drawn as SVG or PNG. Both come from the same matrix (the qrcode library's
// `create`), so the two formats always show the same symbol.
//
// The PNG is written here rather than by qrcode's own renderer: that one draws 32-bit pixels with
// pngjs synchronously, so a large image blocks the event loop (and every redirect of the instance
// waits). A QR code is black and white: one bit per pixel, a row of modules built once and
// repeated for each pixel row, and the compression done by zlib on its thread pool, off the event
// loop.

import { promisify } from 'node:util';
import { crc32, deflate } from 'node:zlib';
import QRCode from 'qrcode';

export type QrLevel = 'L' | 'M' | 'Q' | 'H';

export interface QrMatrix {
  /** Modules per side, without the quiet zone. */
  readonly size: number;
  /** 1: dark, row by row. */
  readonly data: Uint8Array;
}

export function qrMatrix(text: string, level: QrLevel): QrMatrix {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: level });
  return { size: modules.size, data: modules.data };
}

/** An SVG of `pixels` × `pixels`, with a quiet zone of `margin` modules; one rectangle per run of dark modules. */
export function qrSvg(matrix: QrMatrix, pixels: number, margin: number): string {
  const side = matrix.size + 2 * margin;
  let path = '';
  for (let row = 0; row < matrix.size; row++) {
    for (let col = 0; col < matrix.size; col++) {
      if (matrix.data[row * matrix.size + col] !== 1) continue;
      const start = col;
      while (col + 1 < matrix.size && matrix.data[row * matrix.size + col + 1] === 1) col++;
      path += `M${start + margin} ${row + margin}h${col + 1 - start}v1h-${col + 1 - start}z`;
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pixels}" height="${pixels}" ` +
    `viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<path fill="#fff" d="M0 0h${side}v${side}H0z"/><path fill="#000" d="${path}"/></svg>`
  );
}

const deflateAsync = promisify(deflate);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, tail]);
}

/**
 * A 1-bit greyscale PNG of `pixels` × `pixels` with a quiet zone of `margin` modules. When the
 * side does not divide into modules, some modules are a pixel wider than others, as qrcode's own
 * renderer does.
 */
export async function qrPng(matrix: QrMatrix, pixels: number, margin: number): Promise<Buffer> {
  const side = matrix.size + 2 * margin;
  const moduleAt = (pixel: number) => Math.floor((pixel * side) / pixels) - margin;
  const rowBytes = 1 + Math.ceil(pixels / 8);
  const raw = Buffer.alloc(rowBytes * pixels);
  // Filter byte 0 (none), then pixels, 1 bit each, most significant first; 1 is white.
  const light = Buffer.alloc(rowBytes, 0xff);
  light[0] = 0;
  let previousModule = Number.NaN;
  let previousRow = 0;
  for (let y = 0; y < pixels; y++) {
    const moduleRow = moduleAt(y);
    const offset = y * rowBytes;
    if (moduleRow === previousModule) {
      raw.copy(raw, offset, previousRow, previousRow + rowBytes);
    } else if (moduleRow < 0 || moduleRow >= matrix.size) {
      light.copy(raw, offset);
    } else {
      let byte = 0;
      for (let x = 0; x < pixels; x++) {
        const moduleCol = moduleAt(x);
        const dark = moduleCol >= 0 && moduleCol < matrix.size && matrix.data[moduleRow * matrix.size + moduleCol] === 1;
        if (!dark) byte |= 0x80 >> (x & 7);
        if ((x & 7) === 7 || x === pixels - 1) {
          raw[offset + 1 + (x >> 3)] = byte;
          byte = 0;
        }
      }
    }
    previousModule = moduleRow;
    previousRow = offset;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(pixels, 0);
  header.writeUInt32BE(pixels, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale; compression, filter and interlace 0
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', await deflateAsync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
