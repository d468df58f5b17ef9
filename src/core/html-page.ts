// The small HTML pages a link answers instead of a redirect (preview-page.ts, app-page.ts,
// password-page.ts): each a whole answer with the same head (type, caching, its own strict CSP,
// nosniff), in the shape edge/respond.ts writes (its Prebuilt). Pure: no I/O.

import { createHash } from 'node:crypto';

export interface HtmlPage {
  readonly status: number;
  readonly head: readonly string[];
  readonly body: string;
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** What a page for people (the password form, the app page) looks like first: readable on a phone. */
export const PAGE_STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1a1a1a;background:#fff}' +
  'main{max-width:24rem;margin:0 auto}h1{font-size:1.375rem;margin:0 0 1rem}';
/** A button's look, for a button or a link that acts as one: a 44-pixel touch target. */
export const BUTTON_STYLE =
  'min-height:44px;padding:0 1.25rem;font:inherit;font-weight:600;color:#fff;background:#1d4ed8;border:0;border-radius:6px';

/** The CSP source that allows exactly this inline script or style. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

/** `body` as an answer under `csp`; `extra`: more header names and values, before the length. */
export function htmlPage(status: number, body: string, csp: string, cacheControl: string, extra: readonly string[] = []): HtmlPage {
  return {
    status,
    head: [
      'content-type',
      'text/html; charset=utf-8',
      'cache-control',
      cacheControl,
      'content-security-policy',
      csp,
      'x-content-type-options',
      'nosniff',
      ...extra,
      'content-length',
      String(Buffer.byteLength(body)),
    ],
    body,
  };
}
