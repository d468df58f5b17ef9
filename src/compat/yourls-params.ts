// YOURLS reads its parameters from PHP's $_REQUEST: the query string, then the POST body over it,
// whether the body is a form (application/x-www-form-urlencoded) or multipart/form-data (what
// PHP's curl sends for an array of fields, as YOURLS's own sample-remote-api-call.txt does). A
// name given twice keeps its last value, as PHP does. Nothing here is logged: the parameters carry
// the key (signature, password).

import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

/** A YOURLS call's parameters: each name's last value. */
export type YourlsParams = ReadonlyMap<string, string>;

/** The largest body a YOURLS call may send: a URL, a keyword, a title and the credentials fit many times over. */
const FORM_BODY_LIMIT = 64 * 1024;
const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';

/** Form and multipart bodies, kept as their raw text: params() decodes them (the route's only body types). */
export function acceptFormBodies(app: FastifyInstance): void {
  // Our API takes JSON only; YOURLS's calls are forms.
  app.removeAllContentTypeParsers();
  for (const type of [FORM, MULTIPART]) {
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => done(null, body));
  }
}

/** The call's parameters: the query string's, then the body's over them (PHP's request order "GP"). */
export async function paramsOf(rawUrl: string, contentType: string | undefined, body: unknown): Promise<YourlsParams> {
  const params = new Map<string, string>();
  const query = rawUrl.indexOf('?');
  if (query !== -1) for (const [name, value] of new URLSearchParams(rawUrl.slice(query + 1))) params.set(name, value);
  if (!(body instanceof Buffer) || contentType === undefined) return params;
  const type = contentType.split(';')[0]?.trim().toLowerCase();
  if (type === FORM) {
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) params.set(name, value);
    return params;
  }
  // Node's own fetch Response reads multipart bodies (undici); a file among the fields is no YOURLS parameter.
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new AppError('BODY_INVALID', 'The multipart/form-data body cannot be read.');
  }
  for (const [name, value] of form) {
    if (typeof value !== 'string') throw new AppError('BODY_INVALID', `${name} must be a text field, not a file.`);
    params.set(name, value);
  }
  return params;
}
