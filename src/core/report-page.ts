// The abuse report form on every short domain (operators/report-routes.ts) and its answers: the
// form (a short URL, a reason, an optional message and email), the thanks, and a refusal with the
// form again. The deployment's page, never a workspace's brand (a link's owner may be who is
// reported). No script; one style sheet allowed by its hash; the form posts to itself alone.
// Pure: no I/O.

import { BUTTON_STYLE, cspHash, escapeHtml, htmlPage, PAGE_STYLE, type HtmlPage } from './html-page.ts';

/** The reasons offered, by value, with their words. */
export const REASON_WORDS: Readonly<Record<string, string>> = {
  phishing: 'Phishing: it asks for passwords, payment or personal details',
  malware: 'Malware: it downloads or installs harmful software',
  spam: 'Spam: it was sent unasked, in bulk',
  illegal: 'Illegal content',
  other: 'Something else',
};

const STYLE =
  PAGE_STYLE +
  'p{margin:0 0 1rem}label,legend{display:block;font-weight:600;margin:0 0 .25rem}' +
  'input[type=url],input[type=email],textarea{box-sizing:border-box;width:100%;min-height:44px;padding:.5rem;font:inherit;border:1px solid #6b7280;border-radius:6px}' +
  'fieldset{border:0;padding:0;margin:0 0 1rem}.choice{display:flex;align-items:center;gap:.5rem;min-height:44px;font-weight:400}' +
  '.choice input{flex:none;width:1.25rem;height:1.25rem;margin:0}.field{margin:0 0 1rem}.hint{color:#4b5563;font-size:.875rem;margin:.25rem 0 0}' +
  '.error{color:#991b1b;font-weight:600;padding:.5rem;border-left:4px solid #b91c1c;background:#fef2f2}' +
  `button{${BUTTON_STYLE}}button:focus-visible,input:focus-visible,textarea:focus-visible,a:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}`;
const CSP = `default-src 'none'; style-src ${cspHash(STYLE)}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;

/** What the form shows: values given so far, the form token, and an error (field, words). */
export interface ReportForm {
  readonly shortUrl: string;
  readonly reason: string;
  readonly message: string;
  readonly email: string;
  readonly token: string;
  readonly error?: { readonly field: string; readonly text: string };
}

function page(status: number, title: string, main: string, extra: readonly string[] = []): HtmlPage {
  const body =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${title}</title><style>${STYLE}</style></head>\n` +
    `<body><main><h1>${title}</h1>${main}</main></body></html>\n`;
  return htmlPage(status, body, CSP, 'no-store', ['referrer-policy', 'no-referrer', ...extra]);
}

/** The form, with `form`'s values; `status` 200, or the refusal's (its error shown and tied to its field). */
export function reportFormPage(form: ReportForm, status = 200, extra: readonly string[] = []): HtmlPage {
  const error = form.error;
  const described = (field: string) => (error?.field === field ? ' aria-describedby="error" aria-invalid="true"' : '');
  const reasons = Object.entries(REASON_WORDS)
    .map(
      ([value, words]) =>
        `<label class="choice"><input type="radio" name="reason" value="${value}" required${form.reason === value ? ' checked' : ''}>${words}</label>`,
    )
    .join('');
  const main =
    '<p>Tell us about a short link of this service that leads somewhere harmful. We read every report.</p>' +
    (error === undefined ? '' : `<p class="error" id="error" role="alert">${escapeHtml(error.text)}</p>`) +
    '<form method="post" action="/report">' +
    `<input type="hidden" name="token" value="${escapeHtml(form.token)}">` +
    `<div class="field"><label for="url">The short link</label><input type="url" id="url" name="url" required maxlength="2100" value="${escapeHtml(form.shortUrl)}"${described('url')}></div>` +
    `<fieldset${described('reason')}><legend>What is wrong with it</legend>${reasons}</fieldset>` +
    `<div class="field"><label for="message">What you saw (optional)</label><textarea id="message" name="message" rows="4" maxlength="1000"${described('message')}>${escapeHtml(form.message)}</textarea></div>` +
    `<div class="field"><label for="email">Your email (optional)</label><input type="email" id="email" name="email" maxlength="254" autocomplete="email" value="${escapeHtml(form.email)}" aria-describedby="email-hint"${described('email') === '' ? '' : ' aria-invalid="true"'}>` +
    '<p class="hint" id="email-hint">Only if you would like us to be able to ask you more. It is shown to our operators alone.</p></div>' +
    '<button type="submit">Send report</button></form>';
  return page(status, 'Report a link', main, extra);
}

/** The answer to a report taken. */
export function reportThanksPage(): HtmlPage {
  return page(
    201,
    'Thank you for your report',
    '<p>We have it, and our operators will look at the link. You do not need to do anything more.</p>',
  );
}

/** A polite refusal without the form (too many reports): status, words, headers. */
export function reportRefusedPage(status: number, text: string, extra: readonly string[]): HtmlPage {
  return page(status, 'Thank you', `<p>${escapeHtml(text)}</p>`, extra);
}
