import { useEffect, useRef } from 'preact/hooks';
import { textOn } from '../../../src/core/contrast.ts';

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
