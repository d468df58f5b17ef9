// The small HTML pages a link answers instead of a redirect (preview-page.ts, app-page.ts,
// password-page.ts): each a whole answer with the same head (type, caching, its own strict CSP,
// nosniff), in the shape http/respond.ts writes (its Prebuilt). Pure: no I/O.

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
