// Text that reads on a colour, by WCAG 2.x contrast: the visitors' pages in a brand (brand.ts) and the settings
// page's preview of them (web/src/settings/BrandPreview.tsx) choose it alike. No imports: the dashboard bundles it.

/** WCAG 2.x relative luminance of #rrggbb. */
export function luminance(color: string): number {
  const channel = (at: number) => {
    const c = Number.parseInt(color.slice(at, at + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white, whichever contrasts more with `background`: at least 4.58:1 on any colour (AA asks 4.5). */
export function textOn(background: string): '#000000' | '#ffffff' {
  return contrastRatio(background, '#ffffff') >= contrastRatio(background, '#000000') ? '#ffffff' : '#000000';
}
