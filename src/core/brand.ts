// A workspace's brand (migrations/0019_workspace_brand.sql) as the pages for visitors wear it
// (visitor-page.ts, password-page.ts): its name and logo in a bar of its colour, whose text is
// black or white, whichever meets WCAG AA against it. Pure: no I/O.

import { textOn } from './contrast.ts';
import { escapeHtml } from './html-page.ts';

export interface BrandLogo {
  /** image/png, image/jpeg or image/webp (never SVG, which can carry script). */
  readonly type: string;
  readonly base64: string;
  /** What the logo's bytes are known by (their md5): an unchanged logo is not read again. */
  readonly hash: string;
}

/** What a workspace set; each part null when not set. */
export interface Brand {
  readonly name: string | null;
  /** #rrggbb. */
  readonly color: string | null;
  readonly logo: BrandLogo | null;
}

/** The accent without a brand colour: the service's own blue (html-page.ts BUTTON_STYLE). */
export const NEUTRAL_ACCENT = '#1d4ed8';

const HEX_COLOR = /^#[0-9a-f]{6}$/i;

/** How a page looks in a brand: the CSS it adds, the bar it starts with, what its CSP must allow. */
export interface BrandLook {
  /** Rules for the accent (.accent) and the bar (.brand). */
  readonly style: string;
  /** The bar with the logo and the name; '' without either. */
  readonly bar: string;
  /** "; img-src data:" when there is a logo, else ''. */
  readonly imgSrc: string;
  /** The brand's name, or null. */
  readonly name: string | null;
}

/** `alt`: the logo's text when the brand has no name to show beside it (the domain's host). */
export function brandLook(brand: Brand | null, alt: string): BrandLook {
  const set = brand?.color ?? null;
  const color = set !== null && HEX_COLOR.test(set) ? set.toLowerCase() : NEUTRAL_ACCENT;
  const on = textOn(color);
  const name = brand?.name ?? null;
  const logo = brand?.logo ?? null;
  const style =
    `.accent{color:${on};background:${color}}` +
    '.brand{display:flex;align-items:center;gap:.75rem;margin:0 0 1.5rem;padding:.625rem 1rem;border-radius:8px;' +
    'font-weight:600;font-size:1.125rem;overflow-wrap:anywhere}' +
    '.brand img{display:block;max-height:40px;max-width:10rem;width:auto;height:auto}';
  let bar = '';
  if (name !== null || logo !== null) {
    const img =
      logo === null ? '' : `<img src="data:${escapeHtml(logo.type)};base64,${logo.base64}" alt="${name === null ? escapeHtml(alt) : ''}">`;
    bar = `<header class="brand accent">${img}${name === null ? '' : `<span>${escapeHtml(name)}</span>`}</header>`;
  }
  return { style, bar, imgSrc: logo === null ? '' : '; img-src data:', name };
}
