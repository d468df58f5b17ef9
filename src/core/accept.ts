// Whether a request's Accept header prefers a page for people to JSON: read only for a dead link's
// answer (edge/redirect-handler.ts), never for a live one. Pure: no I/O.

/**
 * Whether `accept` names text/html (with q above 0) and ranks application/json no higher: what a
 * browser's navigation sends (text/html,application/xhtml+xml,...,*\/*;q=0.8). No Accept, *\/* and
 * application/json are an API client's: JSON, as before.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined || accept.length < 9) return false;
  let html = -1;
  let json = -1;
  // The most specific range that matches application/json decides its weight (RFC 9110 12.5.1).
  let jsonSpecificity = -1;
  for (const part of accept.split(',')) {
    const semicolon = part.indexOf(';');
    const range = (semicolon === -1 ? part : part.slice(0, semicolon)).trim().toLowerCase();
    const specificity = range === 'application/json' ? 2 : range === 'application/*' ? 1 : range === '*/*' ? 0 : -1;
    if (range !== 'text/html' && specificity === -1) continue;
    const q = semicolon === -1 ? 1 : weightOf(part.slice(semicolon + 1));
    if (range === 'text/html') html = Math.max(html, q);
    else if (specificity > jsonSpecificity) {
      jsonSpecificity = specificity;
      json = q;
    }
  }
  return html > 0 && json <= html;
}

/** The q parameter among a range's parameters; 1 without one, 0 for a malformed one. */
function weightOf(params: string): number {
  for (const param of params.split(';')) {
    const equals = param.indexOf('=');
    if (equals === -1 || param.slice(0, equals).trim().toLowerCase() !== 'q') continue;
    const value = param.slice(equals + 1).trim();
    return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value) ? Number(value) : 0;
  }
  return 1;
}
