import { useEffect, useState } from 'preact/hooks';
import type { LinkFormValues } from './values.ts';
import { normaliseUrl } from './normalise-url.ts';
import { qrSymbol, type QrSymbol } from './qr-symbol.ts';

interface PreviewPanelProps {
  values: LinkFormValues;
  /** The short link as it will be: `https://host/alias`; null while the code is to be chosen at random. */
  shortUrl: string | null;
  /** Its host (with a port, if any), for the card. */
  host: string;
}

/** A generated code's stand-in, for a QR code of the right size before the link has its code. */
const SAMPLE_CODE = 'Ab3dE7x';
/** The QR code scanners read: the short link marked as a scan, as GET /links/:code/qr makes it. */
const scanUrl = (shortUrl: string) => `${shortUrl}?qr=1`;

/** The link as people will meet it: its QR code and the card chat apps show. Beside the form on a desk, under it on a phone. */
export function PreviewPanel({ values, shortUrl, host }: PreviewPanelProps) {
  const text = scanUrl(shortUrl ?? `${location.protocol}//${host}/${SAMPLE_CODE}`);
  const [symbol, setSymbol] = useState<QrSymbol | null>(null);
  useEffect(() => {
    let current = true;
    qrSymbol(text).then(
      (made) => current && setSymbol(made),
      () => current && setSymbol(null),
    );
    return () => {
      current = false;
    };
  }, [text]);

  const { options: o } = values;
  const target = targetHost(values.url);
  const title = o.previewTitle.trim() || values.title.trim() || target || 'The target page’s title';
  const description = o.previewDescription.trim() || (o.previewTitle.trim() === '' ? 'As the target page describes itself.' : '');

  return (
    <aside class="builder-aside" aria-labelledby="builder-preview-heading">
      <h2 id="builder-preview-heading">Preview</h2>
      <figure class="builder-qr">
        {symbol === null ? (
          <div class="builder-qr-empty" />
        ) : (
          <svg
            role="img"
            aria-label={shortUrl === null ? 'QR code of an example short link' : `QR code of ${shortUrl}`}
            viewBox={`-4 -4 ${symbol.size + 8} ${symbol.size + 8}`}
            width="176"
            height="176"
            shape-rendering="crispEdges"
          >
            <rect x="-4" y="-4" width={symbol.size + 8} height={symbol.size + 8} fill="#fff" />
            <path fill="#000" d={symbol.path} />
          </svg>
        )}
        <figcaption>{shortUrl === null ? 'An example: the code is chosen when the link is made.' : `Scans open ${shortUrl}.`}</figcaption>
      </figure>
      <figure class="social-card">
        <div class={o.previewImage.trim() === '' ? 'social-card-image social-card-no-image' : 'social-card-image'}>
          {o.previewImage.trim() === '' ? 'No image' : `Image from ${targetHost(o.previewImage) ?? 'its address'}`}
        </div>
        <div class="social-card-text">
          <p class="social-card-host">{host}</p>
          <p class="social-card-title">{title}</p>
          {description !== '' && <p class="social-card-description">{description}</p>}
        </div>
        <figcaption>What chat apps and social networks show for the link.</figcaption>
      </figure>
    </aside>
  );
}

function targetHost(typed: string): string | null {
  try {
    return new URL(normaliseUrl(typed).url).host || null;
  } catch {
    return null;
  }
}
