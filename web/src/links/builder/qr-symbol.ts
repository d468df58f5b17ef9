// The QR symbol of a short URL, drawn in the page: the `qrcode` package's matrix (the same library the
// server's images come from, links/qr-image.ts), loaded with the page that shows it (its own chunk).

/** The dark modules as one SVG path (a run of dark modules per `M x y h w v1 h-w z`), and the side in modules. */
export interface QrSymbol {
  path: string;
  size: number;
}

export async function qrSymbol(text: string): Promise<QrSymbol> {
  const { create } = await import('qrcode');
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  let path = '';
  for (let y = 0; y < modules.size; y++) {
    for (let x = 0; x < modules.size;) {
      if (!modules.get(y, x)) {
        x++;
        continue;
      }
      let w = 1;
      while (x + w < modules.size && modules.get(y, x + w)) w++;
      path += `M${x} ${y}h${w}v1h-${w}z`;
      x += w;
    }
  }
  return { path, size: modules.size };
}
