// A fetch that hands each request of the typed client to the app in process (app.inject) instead of
// the network: the tools of POST /mcp go through exactly the routes, hooks, roles, limits and error
// answers an API client meets, without a second connection. The request is made as from the MCP
// request's client (its address and host), so that per-client limits count that client, not the
// process itself.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorBody, errorHeaders } from '../errors.ts';

/** The origin the typed client is given: only the path and query of its URLs reach the app. */
export const IN_PROCESS_ORIGIN = 'http://in-process.invalid';

/** Statuses whose answer has no body (the Response constructor refuses one). */
const BODILESS: ReadonlySet<number> = new Set([204, 205, 304]);

/** A fetch that asks `app` itself, as the client of `from` (the MCP request) would. */
export function inProcessFetch(app: FastifyInstance, from: FastifyRequest): typeof fetch {
  return async (resource, init) => {
    const request = new Request(resource, init);
    const url = new URL(request.url);
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = Object.fromEntries(request.headers);
    if (from.host !== '') headers.host = from.host;
    let answer;
    try {
      answer = await app.inject({
        method: request.method,
        url: `${url.pathname}${url.search}`,
        headers,
        remoteAddress: from.ip,
        ...(body === undefined ? {} : { payload: body }),
      });
    } catch (error) {
      // inject() refuses once the app is closing: a request on a connection still open while the server drains.
      if ((error as { code?: unknown }).code !== 'FST_ERR_REOPENED_CLOSE_SERVER') throw error;
      return new Response(errorBody('SHUTTING_DOWN'), { status: 503, headers: errorHeaders('SHUTTING_DOWN') });
    }
    const answerHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of [value].flat()) answerHeaders.append(name, String(one));
    }
    return new Response(BODILESS.has(answer.statusCode) ? null : answer.rawPayload, { status: answer.statusCode, headers: answerHeaders });
  };
}
