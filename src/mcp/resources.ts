// A link and its stats as resources, JSON as the API answers them, read with the typed client (the
// key's workspace and role). A link of the default domain is `shortener://links/{code}`; a link of
// a branded domain carries its host in the path, `shortener://domains/{domain}/links/{code}`, so that
// no template can read another's URI (a code never contains "/").

import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ShortenerError, type Client } from '../client/client.ts';
import * as api from '../client/operations.ts';
import * as input from './inputs.ts';

/** JSON-RPC's code for a resource that does not exist (MCP specification, resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A read that failed, as the JSON-RPC error the SDK sends for it: a numeric `code`, a message without
 * the prefix McpError adds (the client adds its own), and the API's error in `data`.
 */
class ReadError extends Error {
  readonly code: number;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: number, message: string, data?: Record<string, unknown>) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

function readErrorOf(error: ShortenerError): ReadError {
  const code = error.status === 404 ? RESOURCE_NOT_FOUND : error.status === 400 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new ReadError(code, `${error.code}: ${error.message}`, { code: error.code, status: error.status });
}

/** The link a URI names: its code, and its domain where the template has one. */
function linkOf(variables: Variables): { code: string; query: { domain: string } | undefined } {
  const code = input.code.safeParse(variables.code);
  const domain = variables.domain === undefined ? undefined : input.domain.safeParse(variables.domain);
  if (!code.success)
    throw new ReadError(ErrorCode.InvalidParams, 'The URI does not name a link: a code is 3–64 characters of A-Z a-z 0-9 _ -.');
  if (domain?.success === false) throw new ReadError(ErrorCode.InvalidParams, 'The URI does not name a short domain.');
  return { code: code.data, query: domain === undefined ? undefined : { domain: domain.data } };
}

/** The JSON `load` answers, as the contents of `uri`; a refusal of the API as a JSON-RPC error with its code. */
async function json(uri: URL, load: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(await load()) }] };
  } catch (error) {
    throw error instanceof ShortenerError ? readErrorOf(error) : error;
  }
}

export function registerResources(server: McpServer, client: Client): void {
  const readLink = (uri: URL, variables: Variables) =>
    json(uri, async () => {
      const { code, query } = linkOf(variables);
      return (await api.getLinksByCode({ client, throwOnError: true, path: { code }, ...(query === undefined ? {} : { query }) })).data;
    });
  // Every dimension the deployment keeps, over the last 30 days: what a reader would ask for first.
  const readStats = (uri: URL, variables: Variables) =>
    json(uri, async () => {
      const { code, query } = linkOf(variables);
      return (await api.getLinksByCodeStats({ client, throwOnError: true, path: { code }, query: { ...query, dimensions: 'all' } })).data;
    });

  const link = { mimeType: 'application/json', description: "A link of the key's workspace, as GET /links/{code} answers it." };
  const stats = {
    mimeType: 'application/json',
    description: "A link's clicks over the last 30 days, per day and per dimension, as GET /links/{code}/stats answers it.",
  };
  server.registerResource(
    'link',
    new ResourceTemplate('shortener://links/{code}', { list: undefined }),
    { ...link, title: 'A link' },
    readLink,
  );
  server.registerResource(
    'link-stats',
    new ResourceTemplate('shortener://links/{code}/stats', { list: undefined }),
    { ...stats, title: "A link's clicks" },
    readStats,
  );
  server.registerResource(
    'domain-link',
    new ResourceTemplate('shortener://domains/{domain}/links/{code}', { list: undefined }),
    { ...link, title: 'A link of a branded domain' },
    readLink,
  );
  server.registerResource(
    'domain-link-stats',
    new ResourceTemplate('shortener://domains/{domain}/links/{code}/stats', { list: undefined }),
    { ...stats, title: "A branded domain link's clicks" },
    readStats,
  );
}
