// The MCP server over stdio, for a client that starts it as a child process (Claude Desktop, an
// IDE): `shortener mcp` calls serveMcpOverStdio; `node src/mcp/stdio.ts` reads SHORTENER_URL and
// SHORTENER_API_KEY. It reaches the service over HTTP like any API client. stdout carries the
// protocol and nothing else; what it has to say goes to stderr, never with the key. docs/mcp.md.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { shortenerClient } from '../client/client.ts';
import { mcpServer } from './server.ts';

/** Exit code for a start without what it needs (the CLI's usage errors exit 2 too). */
const USAGE_EXIT_CODE = 2;

/** Serves the tools on stdin and stdout, calling the service at `baseUrl` with `key`; resolves once the client has closed stdin. */
export async function serveMcpOverStdio(options: { baseUrl: string; key: string }): Promise<void> {
  const server = mcpServer(shortenerClient({ baseUrl: options.baseUrl.replace(/\/+$/, ''), key: options.key }));
  const closed = new Promise<void>((resolve) => process.stdin.once('end', resolve).once('close', resolve));
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close();
}

/** What the environment gives serveMcpOverStdio, or what is missing from it. */
function optionsFrom(env: NodeJS.ProcessEnv): { baseUrl: string; key: string } | { problem: string } {
  const baseUrl = env.SHORTENER_URL ?? '';
  const key = env.SHORTENER_API_KEY ?? '';
  if (baseUrl === '' || key === '') {
    const missing = [baseUrl === '' ? 'SHORTENER_URL' : [], key === '' ? 'SHORTENER_API_KEY' : []].flat().join(' and ');
    return { problem: `Set ${missing}: the service's URL (https://sho.rt) and an API key of the workspace to act in.` };
  }
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    return { problem: 'SHORTENER_URL must be the http:// or https:// URL of the service, e.g. https://sho.rt.' };
  }
  const { username, password } = new URL(baseUrl);
  if (username !== '' || password !== '') return { problem: 'SHORTENER_URL must not hold a user name or password.' };
  if (!/^[\x21-\x7e]+$/.test(key))
    return { problem: 'SHORTENER_API_KEY holds a character no key has (a space or a line break?): copy it again.' };
  return { baseUrl, key };
}

if (import.meta.main) {
  const options = optionsFrom(process.env);
  if ('problem' in options) {
    process.stderr.write(`shortener mcp: ${options.problem}\n`);
    process.exitCode = USAGE_EXIT_CODE;
  } else {
    process.stderr.write(`shortener mcp: serving on stdio, calling ${new URL(options.baseUrl).origin}\n`);
    await serveMcpOverStdio(options);
  }
}
