import { useEffect, useRef } from 'preact/hooks';

interface BrandPreviewProps {
  /** The brand's name, or the workspace's when it has none. */
  name: string;
  /** #rrggbb, or null for the service's own colour. */
  color: string | null;
  /** A data: URL, or null. */
  logo: string | null;
}

/**
 * What a visitor sees on a dead link of the workspace's domains, in small: a card with the brand. The colour is set
 * through the CSSOM (a custom property), which the page's CSP allows where a style attribute would not be.
 */
export function BrandPreview({ name, color, logo }: BrandPreviewProps) {
  const card = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const style = card.current?.style;
    if (style === undefined) return;
    if (color === null) {
      style.removeProperty('--brand-color');
      style.removeProperty('--brand-text');
    } else {
      style.setProperty('--brand-color', color);
      style.setProperty('--brand-text', textOn(color));
    }
  }, [color]);
  return (
    <figure class="brand-preview">
      <figcaption>What a visitor sees on a link that no longer works</figcaption>
      <div class="brand-card" ref={card}>
        <div class="brand-card-head">
          {logo !== null && <img class="brand-card-logo" src={logo} alt="" />}
          <span class="brand-card-name">{name}</span>
        </div>
        <p class="brand-card-title">This link has expired</p>
        <p class="brand-card-text">The link you followed no longer leads anywhere.</p>
        <span class="brand-card-button">Go to {name}</span>
      </div>
    </figure>
  );
}

/** Black or white, whichever reads better on `color` (#rrggbb), by WCAG relative luminance. */
export function textOn(color: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = parseInt(color.slice(at, at + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast with white (1.05 / (L + 0.05)) against with black ((L + 0.05) / 0.05): the larger wins.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#ffffff' : '#000000';
}
