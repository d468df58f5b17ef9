// The MCP server of the shortener (docs/mcp.md): tools and resources over one typed client, so that
// every call acts with that client's API key, in its workspace and role, and is refused with the
// API's codes. stdio.ts serves it to one local client; plugin.ts builds one per request of POST /mcp.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Client } from '../client/client.ts';
import { registerLinkTools } from './link-tools.ts';
import { registerResources } from './resources.ts';
import { registerStatsTools } from './stats-tools.ts';

const INSTRUCTIONS =
  'Tools for one workspace of a URL shortener, acting with one API key: its role decides what is allowed (viewer: read; member: ' +
  'create, and change the links it created; admin: everything). A link is named by its code (case-sensitive) and, on a branded ' +
  'short domain, that domain\'s host. Errors are "<CODE>: <message>"; the code is stable (LINK_NOT_FOUND, ROLE_FORBIDDEN, ...).';

/** A server with every tool and resource, calling the API through `client`. */
export function mcpServer(client: Client): McpServer {
  // The version of the API it speaks (api/docs.ts).
  const server = new McpServer({ name: 'shortener', version: '1' }, { instructions: INSTRUCTIONS });
  registerLinkTools(server, client);
  registerStatsTools(server, client);
  registerResources(server, client);
  return server;
}
