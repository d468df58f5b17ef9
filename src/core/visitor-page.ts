// The pages a browser gets for a link that does not redirect (unknown, expired, turned off, used up,
// not yet active, with when it starts) instead of its JSON error: what happened, that it is not the visitor's fault, and
// a way on, in the domain's workspace's brand (brand.ts). Built once per domain when the host table
// is read (resolve/hosts.ts), never per request; no script, one style sheet allowed by its hash.
// Which clients get them: accept.ts. Pure: no I/O.

import { ERRORS } from '../errors.ts';
import { brandLook, type Brand } from './brand.ts';
import { cspHash, escapeHtml, htmlPage, PAGE_STYLE, type HtmlPage } from './html-page.ts';

/** A domain's page for each refusal, by its error code. */
export type VisitorPages = ReadonlyMap<string, HtmlPage>;

/** A state's words, as HTML. */
interface Words {
  readonly title: string;
  /** What happened; `host` is the domain's name, as HTML. */
  readonly what: (host: string) => string;
  readonly why: string;
}

/**
 * The words of each state, by error code: a code the errors table does not have (yet) gets its page
 * all the same, with the status of an unknown link.
 */
const STATES: Readonly<Record<string, Words>> = {
  LINK_NOT_FOUND: {
    title: "This link doesn't exist",
    what: (host) => `There is no link at this address on ${host}. It may have been mistyped, or never made.`,
    why: "You did nothing wrong. If someone sent it to you, let them know it doesn't work.",
  },
  LINK_EXPIRED: {
    title: 'This link has expired',
    what: (host) => `The link you followed on ${host} was set to stop working after a date, and that date has passed.`,
    why: "You did nothing wrong: the link's owner chose when it would end.",
  },
  LINK_DISABLED: {
    title: 'This link has been turned off',
    what: (host) => `Whoever made this link on ${host} has turned it off, so it no longer leads anywhere.`,
    why: 'You did nothing wrong.',
  },
  LINK_CLICK_LIMIT_REACHED: {
    title: 'This link has been used up',
    what: (host) => `This link on ${host} was made to be opened a set number of times, and that number has been reached.`,
    why: "You did nothing wrong: the link's owner chose the limit.",
  },
  LINK_BLOCKED: {
    title: 'This link has been blocked',
    what: (host) =>
      `The link you followed on ${host} was blocked by the people who run it: its destination is on a list of sites known for phishing, malware or other abuse, or the link was reported and found abusive. It no longer sends anyone there.`,
    why: "You did nothing wrong. If you reached a site through this link before, don't enter passwords or payment details there.",
  },
  LINK_NOT_YET_ACTIVE: {
    title: "This link isn't active yet",
    what: (host) => `This link on ${host} exists, but it only starts working later.`,
    why: 'You did nothing wrong. Try again later.',
  },
};

/** The states that have a page, by error code. */
export const VISITOR_STATES: readonly string[] = Object.keys(STATES);

const STYLE =
  PAGE_STYLE +
  'p{margin:0 0 1rem}.host{font-weight:600;overflow-wrap:anywhere}' +
  '.on{display:inline-flex;align-items:center;box-sizing:border-box;min-height:44px;padding:.5rem 1.25rem;font-weight:600;border-radius:6px;text-decoration:none}' +
  'a:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}';

/** Where a domain's pages are: its host, its brand, and whether its root (`/`) leads somewhere. */
export interface PageSite {
  readonly host: string;
  readonly brand: Brand | null;
  readonly rooted: boolean;
}

/** Every state's page on `site`. */
export function visitorPages(site: PageSite): VisitorPages {
  const { look, style, csp } = pageLook(site);
  const pages = new Map<string, HtmlPage>();
  for (const [code, words] of Object.entries(STATES)) {
    const status = (ERRORS as Readonly<Record<string, { readonly status: number }>>)[code]?.status ?? ERRORS.LINK_NOT_FOUND.status;
    pages.set(code, visitorPage(site, words, look.bar, look.name, style, csp, status));
  }
  return pages;
}

const OPENS_AT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' });

/**
 * The page of a link before its start (LINK_NOT_YET_ACTIVE) on `site`, saying when it opens, in UTC:
 * without a script the page cannot know the visitor's zone. Built when a browser asks for such a
 * link: the date is the link's own, and links before their start are few.
 */
export function notYetPage(site: PageSite, opensAt: Date): HtmlPage {
  const { look, style, csp } = pageLook(site);
  const when = `<time datetime="${opensAt.toISOString()}">${escapeHtml(OPENS_AT.format(opensAt))} UTC</time>`;
  const words: Words = {
    ...(STATES.LINK_NOT_YET_ACTIVE as Words),
    what: (host) => `This link on ${host} exists, and starts working on ${when}.`,
    why: 'You did nothing wrong. Come back then.',
  };
  return visitorPage(site, words, look.bar, look.name, style, csp, ERRORS.LINK_NOT_YET_ACTIVE.status);
}

/** `site`'s brand as its pages show it: their style sheet, and the CSP that allows it (and the brand's logo). */
function pageLook(site: PageSite) {
  const look = brandLook(site.brand, site.host);
  const style = STYLE + look.style;
  const csp = `default-src 'none'; style-src ${cspHash(style)}${look.imgSrc}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return { look, style, csp };
}

function visitorPage(site: PageSite, words: Words, bar: string, name: string | null, style: string, csp: string, status: number): HtmlPage {
  const host = escapeHtml(site.host);
  const owner = escapeHtml(name ?? site.host);
  const wayOn = site.rooted ? `<p><a class="on accent" href="/">Go to ${owner}</a></p>` : '';
  // The words are this file's own HTML; the host and the brand's name are escaped.
  const body =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${words.title} · ${owner}</title><style>${style}</style></head>\n` +
    `<body><main>${bar}<h1>${words.title}</h1>` +
    `<p>${words.what(`<span class="host">${host}</span>`)}</p><p>${words.why}</p>${wayOn}</main></body></html>\n`;
  // The same URL answers JSON to an API client: no shared cache may give one the other's (vary).
  return htmlPage(status, body, csp, 'no-store', ['referrer-policy', 'no-referrer', 'vary', 'accept']);
}
