// Deep links (link-options.ts deepLink): a phone visitor is sent to the link's app, with the web
// target as the fallback. An https link is redirected to as it is; on Android a custom scheme
// becomes an intent: URL whose browser_fallback_url Chrome follows itself, and on iOS the visitor
// gets a small page that opens the app and goes to the web target 1.5 s later, its one script
// allowed by its hash. Pure: no I/O. What each OS gets: docs/api.md#link-options.

import { BUTTON_STYLE, cspHash, escapeHtml, htmlPage, PAGE_STYLE, type HtmlPage } from './html-page.ts';

/** Opens the app, then the web target if the page is still shown (the app did not open). */
const SCRIPT =
  "(function(){var a=document.getElementById('app').href,w=document.getElementById('web').href;" +
  'location.href=a;setTimeout(function(){if(!document.hidden)location.replace(w)},1500)})();';
const STYLE =
  PAGE_STYLE +
  `#app{display:inline-flex;align-items:center;text-decoration:none;${BUTTON_STYLE}}` +
  '#web{display:inline-flex;align-items:center;min-height:44px}';
const CSP = `default-src 'none'; script-src ${cspHash(SCRIPT)}; style-src ${cspHash(STYLE)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** Whether an app URL is a web one (a universal or app link): redirected to as it is. */
export function isWebUrl(appUrl: string): boolean {
  return /^https?:/i.test(appUrl);
}

/** The iOS page that opens `appUrl` (a custom scheme) and falls back to `web`. */
export function appPage(appUrl: string, web: string): HtmlPage {
  const body =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>Opening the app…</title><style>${STYLE}</style></head>\n<body><main>` +
    '<h1>Opening the app…</h1>' +
    `<p><a id="app" href="${escapeHtml(appUrl)}">Open in the app</a></p>` +
    `<p><a id="web" href="${escapeHtml(web)}">Continue in the browser</a></p>` +
    `</main><script>${SCRIPT}</script></body></html>\n`;
  return htmlPage(200, body, CSP, 'no-store');
}

/** The Android intent: URL of a custom-scheme `appUrl`, falling back to `web` where no app takes it. */
export function intentUrl(appUrl: string, web: string): string {
  const colon = appUrl.indexOf(':');
  const scheme = appUrl.slice(0, colon);
  const rest = appUrl.slice(colon + 1).replace(/^\/\//, '');
  // The fragment of the app URL would end the intent's own: it is dropped.
  const hash = rest.indexOf('#');
  const path = hash === -1 ? rest : rest.slice(0, hash);
  return `intent://${path}#Intent;scheme=${scheme};S.browser_fallback_url=${encodeURIComponent(web)};end`;
}
