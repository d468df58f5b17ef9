// Bodies are read as they come: a body the client compressed, or wrote in a charset other than
// UTF-8, would be parsed as garbage (or, worse, as something else), so it is refused with a 415.

import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

/** Refuses, on every route registered after it, a body with a Content-Encoding or a charset this service does not decode. */
export function refuseUndecodedBodies(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const { headers } = request;
    if (headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) return;
    const encoding = headers['content-encoding']?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding "${encoding}" is not decoded here: send the body uncompressed.`);
    }
    const charset = charsetOf(headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Bodies are read as UTF-8: charset "${charset}" is not decoded here.`);
    }
  });
}

/** The charset parameter of a Content-Type, lowercased and unquoted; undefined without one. */
function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  for (const parameter of contentType.split(';').slice(1)) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset')
      return value
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
  }
  return undefined;
}
