// The page a link-preview crawler gets for a link with a social preview (link-options.ts): Open
// Graph and Twitter card tags with the link's own title, description and image, and a plain link
// to the target unless the link is protected (then no target at all). Built once when the link
// enters the cache; no script, no style, a strict CSP. People get the redirect at the same URL, so
// the page is private and says that it varies by User-Agent. Pure: no I/O.

import { escapeHtml, htmlPage, type HtmlPage } from './html-page.ts';
import type { LinkPreview } from './link-options.ts';

const CSP = "default-src 'none'; img-src https: http:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `target` null: a protected link's page, which names no target (its title is the preview's, or none). */
export function previewPage(preview: LinkPreview, target: string | null): HtmlPage {
  const meta: string[] = [];
  const tag = (attribute: 'property' | 'name', name: string, content: string) =>
    meta.push(`<meta ${attribute}="${name}" content="${escapeHtml(content)}">`);
  if (preview.title !== undefined) {
    tag('property', 'og:title', preview.title);
    tag('name', 'twitter:title', preview.title);
  }
  if (preview.description !== undefined) {
    tag('property', 'og:description', preview.description);
    tag('name', 'description', preview.description);
    tag('name', 'twitter:description', preview.description);
  }
  if (preview.image !== undefined) {
    tag('property', 'og:image', preview.image);
    tag('name', 'twitter:image', preview.image);
  }
  tag('property', 'og:type', 'website');
  tag('name', 'twitter:card', preview.image === undefined ? 'summary' : 'summary_large_image');
  const title = escapeHtml(preview.title ?? target ?? 'Protected link');
  const link = target === null ? title : `<a href="${escapeHtml(target)}">${title}</a>`;
  const body =
    `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title>\n${meta.join('\n')}\n</head>` +
    `<body><p>${link}</p></body></html>\n`;
  return htmlPage(200, body, CSP, 'private, max-age=300', ['vary', 'User-Agent']);
}
