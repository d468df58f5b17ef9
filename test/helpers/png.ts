// A real PNG made in the test (no file in the repository, nothing fetched): one colour, w x h pixels.

import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** An RGB PNG of `width` x `height` pixels of colour `rgb`; `noise` makes its bytes hard to compress (a large file). */
export function pngOf(width: number, height: number, rgb: readonly [number, number, number], noise = false): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = 1 + width * 3;
  const pixels = Buffer.alloc(row * height);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const at = y * row + 1 + x * 3;
      pixels.set(noise ? [seed & 255, (seed >> 8) & 255, (seed >> 16) & 255] : rgb, at);
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

export const dataUrlOf = (bytes: Buffer, type = 'image/png'): string => `data:${type};base64,${bytes.toString('base64')}`;
