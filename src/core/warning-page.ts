// The page a browser gets, before anything else, from a link whose target a blocklist named after
// it was made, where the deployment warns instead of blocking (BLOCKLIST_ACTION=warn; core/link.ts
// LinkSafety 'flagged'): the target named in full, the list that names it, a way back, a way to
// report the link, and a plain link on for whoever still wants to go. It is the deployment's page,
// never in the link owner's brand (the owner may be who is warned about). No script: the way on is
// an ordinary link, so it works with scripts off. Built per request (the target may depend on the
// visitor), for flagged links alone. Pure: no I/O.

import { BUTTON_STYLE, cspHash, escapeHtml, htmlPage, PAGE_STYLE, type HtmlPage } from './html-page.ts';

const STYLE =
  PAGE_STYLE +
  'p{margin:0 0 1rem}.target{font-family:ui-monospace,monospace;overflow-wrap:anywhere;padding:.5rem;background:#fef2f2;border-left:4px solid #b91c1c}' +
  'h1{color:#991b1b}.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.5rem 0}' +
  `.back{display:inline-flex;align-items:center;text-decoration:none;box-sizing:border-box;${BUTTON_STYLE}}` +
  '.on,.report{display:inline-flex;align-items:center;min-height:44px;color:#1d4ed8}' +
  'a:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}';
const CSP = `default-src 'none'; style-src ${cspHash(STYLE)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** What the page names: the short link's host and code, where it leads, and the list that named it. */
export interface Warning {
  readonly host: string;
  readonly code: string;
  readonly target: string;
  readonly list: string;
}

export function warningPage({ host, code, target, list }: Warning): HtmlPage {
  // The report form on the same host (links/report-routes.ts) names the link by its code there.
  const report = `/report?code=${encodeURIComponent(code)}`;
  const body =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>Warning: this link may be unsafe</title><style>${STYLE}</style></head>\n` +
    '<body><main><h1>Warning: this link may be unsafe</h1>' +
    `<p>The link you followed on <strong>${escapeHtml(host)}</strong> leads to:</p>` +
    `<p class="target">${escapeHtml(target)}</p>` +
    `<p>That address is on the blocklist <strong>${escapeHtml(list)}</strong>, a list of sites known for phishing, ` +
    'malware or other abuse. Sites like these may try to take passwords, payment details or personal information.</p>' +
    '<p>If you were not expecting this link, or do not trust who sent it, do not go on.</p>' +
    `<div class="actions"><a class="back" href="about:blank">Leave this page</a>` +
    `<a class="report" href="${escapeHtml(report)}">Report this link</a></div>` +
    `<p><a class="on" href="${escapeHtml(target)}" rel="noreferrer noopener">I understand the risk: continue to the site</a></p>` +
    '</main></body></html>\n';
  // Never kept by a cache: the link may be unflagged, and its target may depend on the visitor.
  return htmlPage(200, body, CSP, 'no-store', ['referrer-policy', 'no-referrer']);
}
