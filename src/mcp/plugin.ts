// The MCP server over Streamable HTTP at POST /mcp (docs/mcp.md), as a part. Stateless: each POST
// gets a server and transport of its own, which end with it, so any instance of a cluster answers
// any request and nothing is kept between them. The API key is checked before the body is read
// (api/api-hosts.ts has already refused a short domain's host); the tools then call the API's own
// routes in process with that key (in-process-fetch.ts), so they meet its roles, limits and codes.

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { keyOfSecret, presentedSecret } from '../auth/authenticate.ts';
import { shortenerClient } from '../client/client.ts';
import { AppError, errorBody, errorHeaders } from '../errors.ts';
import { BODY_LIMIT_BYTES } from '../links/create-routes.ts';
import { IN_PROCESS_ORIGIN, inProcessFetch } from './in-process-fetch.ts';
import { mcpServer } from './server.ts';

export const MCP_PATH = '/mcp';

/**
 * The API key a request presents, as the API reads it (auth/authenticate.ts): one
 * `Authorization: Bearer <key>`, or one `X-API-Key`. A session cookie does not count here.
 */
function presentedKey(request: FastifyRequest): string {
  const secret = presentedSecret(request);
  if (secret === undefined) throw new AppError('API_KEY_REQUIRED');
  return secret;
}

/** Answers one POST of JSON-RPC messages with a server and transport made for it alone. */
async function serveOnce(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const client = shortenerClient({ baseUrl: IN_PROCESS_ORIGIN, key: presentedKey(request), fetch: inProcessFetch(app, request) });
  const server = mcpServer(client);
  // No sessionIdGenerator: stateless, no Mcp-Session-Id. JSON answers, not a stream: a stateless
  // server has nothing to send after its answer.
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
  reply.hijack();
  reply.raw.once('close', () => void server.close());
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (err) {
    request.log.error({ err }, 'an MCP request failed');
    if (!reply.raw.headersSent) reply.raw.writeHead(500, errorHeaders('INTERNAL')).end(errorBody('INTERNAL'));
  }
}

async function mcpPart(app: FastifyInstance): Promise<void> {
  const { credentials } = app.auth;
  /** A 401 with the API's code before anything of the request is read, within the client's budget of credential look-ups. */
  const authenticate = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    request.apiKey = await keyOfSecret(credentials, presentedKey(request), request, reply);
  };
  // Hidden from the OpenAPI document: JSON-RPC messages, described by the MCP specification.
  const route = { schema: { hide: true }, onRequest: authenticate };

  app.post(MCP_PATH, { ...route, bodyLimit: BODY_LIMIT_BYTES }, (request, reply) => serveOnce(app, request, reply));
  // Stateless: no stream of messages from the server to open with GET, no session to end with DELETE.
  app.route({
    ...route,
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    handler: async (_request, reply) => {
      reply.header('allow', 'POST');
      throw new AppError('METHOD_NOT_ALLOWED', 'This MCP server is stateless: send every message with POST.');
    },
  });
}

export default fp(mcpPart, { name: 'mcp', dependencies: ['auth'] });
