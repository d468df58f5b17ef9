// The page of a password-protected link (link-options.ts password): one labelled field and a
// button, posted back to the link's own path (links/password-routes.ts), an error tied to the field
// when there is one, in the brand of the link's domain (brand.ts) where it has one. No script; its
// one style sheet is allowed by its hash in the CSP. Pure: no I/O.

import { brandLook, type Brand } from './brand.ts';
import { BUTTON_STYLE, cspHash, escapeHtml, htmlPage, PAGE_STYLE, type HtmlPage } from './html-page.ts';

const STYLE =
  PAGE_STYLE +
  'label{display:block;font-weight:600;margin-bottom:.25rem}' +
  'input{box-sizing:border-box;width:100%;min-height:44px;padding:.5rem .75rem;font:inherit;border:1px solid #6b6b6b;border-radius:6px}' +
  "input[aria-invalid='true']{border-color:#b3261e;box-shadow:0 0 0 1px #b3261e}" +
  `button{margin-top:1rem;${BUTTON_STYLE}}` +
  '.error{color:#b3261e;font-weight:500;margin:.5rem 0 0}';
// The form posts to the link, whose answer (303, then the link's redirect) leads to any web page: browsers
// check form-action against every step of that chain.
const CSP_REST = "; form-action 'self' https: http:; base-uri 'none'; frame-ancestors 'none'";
const CSP = `default-src 'none'; style-src ${cspHash(STYLE)}${CSP_REST}`;

/** Whose form it is: the domain's host and its workspace's brand. */
export interface PasswordSite {
  readonly host: string;
  readonly brand: Brand | null;
}

/**
 * The form, posted to the page's own URL (the link's); `error`: why the last answer was refused;
 * `site`: the link's domain, whose brand the page wears (none: the service's own look).
 */
export function passwordPage(status = 200, error?: string, extra: readonly string[] = [], site?: PasswordSite): HtmlPage {
  const branded = site !== undefined && site.brand !== null;
  const look = branded ? brandLook(site.brand, site.host) : null;
  const style = look === null ? STYLE : STYLE + look.style;
  const csp = look === null ? CSP : `default-src 'none'; style-src ${cspHash(style)}${look.imgSrc}${CSP_REST}`;
  const described = error === undefined ? '' : ' aria-invalid="true" aria-describedby="password-error"';
  const body =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>Password required</title><style>${style}</style></head>\n` +
    `<body><main>${look?.bar ?? ''}<h1>This link is protected</h1>` +
    '<form method="post">' +
    `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required autofocus${described}>` +
    (error === undefined ? '' : `<p class="error" id="password-error" role="alert">${escapeHtml(error)}</p>`) +
    `<button type="submit"${look === null ? '' : ' class="accent"'}>Continue</button></form></main></body></html>\n`;
  return htmlPage(status, body, csp, 'no-store', ['referrer-policy', 'no-referrer', ...extra]);
}
