// The MCP server (src/mcp/, docs/mcp.md) driven by the MCP SDK's own client: over Streamable HTTP at
// POST /mcp of the service on a real port, and over stdio as a child process calling that service.
// Every tool acts with the key's role and workspace, and the API's codes come back as tool errors.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { shortenerClient } from '../../src/client/client.ts';
import * as api from '../../src/client/operations.ts';
import { startApp, type Cleanup } from '../helpers/app.ts';
import { DESKTOP_UA } from '../helpers/agents.ts';
import { servedApp } from '../helpers/compat.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

const STDIO_SERVER = fileURLToPath(new URL('../../src/mcp/stdio.ts', import.meta.url));
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const TOOLS = ['create_link', 'find_links', 'get_link', 'link_stats', 'list_links', 'qr_code', 'update_link', 'workspace_stats'];

// One service for the file, on a port of its own (domains added are served at once); each test
// works in a workspace of its own.
let database: TestDatabase;
let served: Awaited<ReturnType<typeof servedApp>>;
const closings: (() => Promise<void>)[] = [];
before(async () => {
  database = await createTestDatabase('mcp');
  served = await servedApp({ after: (close) => closings.push(close) }, database.url, { DOMAIN_VERIFICATION: 'false' });
});
after(async () => {
  for (const close of closings.toReversed()) await close();
  await database.drop();
});

/** A workspace of its own for a test, with a key of each role. */
async function workspace(name: string) {
  const { keys } = await workspaceWith(database.url, `mcp-${name}`, { admin: 'admin', member: 'member', viewer: 'viewer' });
  return keys;
}

/** The SDK's client connected to `base`/mcp with `headers` on every request, closed after the test. */
async function overHttp(t: Cleanup, base: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  t.after(() => client.close());
  return client;
}

/** Each tool's structured content: the API's answer, as the typed client reads it. */
interface Answers {
  create_link: api.PostLinksResponse;
  update_link: api.PatchLinksByCodeResponse;
  get_link: api.GetLinksByCodeResponse;
  find_links: api.GetLinksResponse;
  list_links: api.GetLinksResponse;
  link_stats: api.GetLinksByCodeStatsResponse;
  workspace_stats: api.GetStatsResponse;
  qr_code: never;
}

/** What a tool answered, as the test reads it: its structured content, its first text, whether it is an error. */
async function call<Name extends keyof Answers>(client: Client, name: Name, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return {
    result,
    isError: result.isError === true,
    text: first?.type === 'text' ? first.text : '',
    data: result.structuredContent as Answers[Name],
  };
}

/** The code of a tool error, from its text (`<CODE>: <message>`) and its structured content, which must agree. */
async function refusedWith(client: Client, name: keyof Answers, args: Record<string, unknown>): Promise<string> {
  const { result, isError, text } = await call(client, name, args);
  assert.equal(isError, true, `${name} was refused: ${text}`);
  const { code } = (result.structuredContent as { error: { code: string } }).error;
  assert.ok(text.startsWith(`${code}: `), text);
  return code;
}

/** POST /mcp with an initialize message and `headers`, without the SDK: the HTTP answer itself. */
function initializeRaw(base: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

test('over HTTP, the tools create, find, list, change, count and draw a link, committed as the API reads it', async (t) => {
  const { app, base } = served;
  const { admin } = await workspace('tools');
  const mcp = await overHttp(t, base, { authorization: `Bearer ${admin.secret}` });
  const typed = shortenerClient({ baseUrl: base, key: admin.secret });

  assert.deepEqual((await mcp.listTools()).tools.map((tool) => tool.name).sort(), TOOLS);

  const created = await call(mcp, 'create_link', {
    url: 'https://example.com/spring',
    alias: 'mcp-spring',
    title: 'Spring sale',
    tags: ['season'],
  });
  assert.equal(created.isError, false, created.text);
  assert.equal(created.data.code, 'mcp-spring');
  assert.equal(created.text, `Created ${base}/mcp-spring → https://example.com/spring "Spring sale" #season`);
  // Committed: the API itself answers it, and it redirects.
  const stored = await api.getLinksByCode({ client: typed, throwOnError: true, path: { code: 'mcp-spring' } });
  assert.equal(stored.data.url, 'https://example.com/spring');
  const click = await fetch(`${base}/mcp-spring`, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } });
  assert.equal(click.headers.get('location'), 'https://example.com/spring');
  const later = await call(mcp, 'create_link', { url: 'https://example.com/summer' });
  assert.equal(later.isError, false, later.text);

  const read = await call(mcp, 'get_link', { code: 'mcp-spring' });
  assert.deepEqual([read.data.url, read.data.state, read.data.title], ['https://example.com/spring', 'active', 'Spring sale']);
  const found = await call(mcp, 'find_links', { q: 'spring' });
  assert.deepEqual(
    found.data.links.map((link) => link.code),
    ['mcp-spring'],
  );
  assert.match(found.text, /^1 links of 1:\n- .*mcp-spring/);
  assert.deepEqual(
    (await call(mcp, 'find_links', { tag: 'season' })).data.links.map((link) => link.code),
    ['mcp-spring'],
  );

  // Pages of one, newest first, with the cursor the first page gave.
  const first = await call(mcp, 'list_links', { limit: 1 });
  assert.deepEqual([first.data.links.map((link) => link.code), first.data.total], [[later.data.code], 2]);
  assert.equal(typeof first.data.nextCursor, 'string');
  assert.ok(first.text.includes(`cursor "${first.data.nextCursor}"`), first.text);
  const second = await call(mcp, 'list_links', { limit: 1, cursor: first.data.nextCursor });
  assert.deepEqual([second.data.links.map((link) => link.code), second.data.nextCursor], [['mcp-spring'], null]);

  const changed = await call(mcp, 'update_link', { code: 'mcp-spring', url: 'https://example.com/autumn', tags: [] });
  assert.equal(changed.isError, false, changed.text);
  assert.deepEqual([changed.data.url, changed.data.tags], ['https://example.com/autumn', []]);
  const redirected = await fetch(`${base}/mcp-spring`, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } });
  assert.equal(redirected.headers.get('location'), 'https://example.com/autumn');

  await app.clicks.flush();
  const stats = await call(mcp, 'link_stats', { code: 'mcp-spring' });
  assert.equal(stats.isError, false, stats.text);
  assert.deepEqual([stats.data.code, stats.data.range.clicks], ['mcp-spring', 2]);
  assert.match(stats.text, /^mcp-spring: \S+ to \S+: clicks by people 2, by bots 0/);
  const everyLink = await call(mcp, 'workspace_stats', {});
  assert.equal(everyLink.data.range.clicks, 2);
  assert.deepEqual(
    everyLink.data.topLinks.map((link) => link.code),
    ['mcp-spring'],
  );

  const png = (await mcp.callTool({ name: 'qr_code', arguments: { code: 'mcp-spring', size: 128 } })) as CallToolResult;
  const image = png.content[0];
  assert.ok(image?.type === 'image', JSON.stringify(png));
  assert.equal(image.mimeType, 'image/png');
  assert.deepEqual(Buffer.from(image.data, 'base64').subarray(0, 8), PNG_SIGNATURE);
  const svg = await call(mcp, 'qr_code', { code: 'mcp-spring', format: 'svg' });
  assert.match(svg.text, /<svg[\s>]/);
});

test('over HTTP, a link and its stats are resources, on the default domain and on a branded one', async (t) => {
  const { base } = served;
  const { admin } = await workspace('resources');
  const typed = shortenerClient({ baseUrl: base, key: admin.secret });
  await api.postDomains({ client: typed, throwOnError: true, body: { host: 'go.example.com' } });
  const mcp = await overHttp(t, base, { 'x-api-key': admin.secret });
  await call(mcp, 'create_link', { url: 'https://example.com/plain', alias: 'mcp-plain' });
  const branded = await call(mcp, 'create_link', { url: 'https://example.com/branded', alias: 'mcp-plain', domain: 'go.example.com' });
  // BASE_URL is http: so are the short URLs of its branded domains.
  assert.equal(branded.data.shortUrl, 'http://go.example.com/mcp-plain');

  const templates = (await mcp.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate).sort();
  assert.deepEqual(templates, [
    'shortener://domains/{domain}/links/{code}',
    'shortener://domains/{domain}/links/{code}/stats',
    'shortener://links/{code}',
    'shortener://links/{code}/stats',
  ]);
  const read = async <T>(uri: string): Promise<T> => {
    const [content] = (await mcp.readResource({ uri })).contents;
    assert.ok(content !== undefined && 'text' in content, uri);
    assert.deepEqual([content.uri, content.mimeType], [uri, 'application/json']);
    return JSON.parse(content.text) as T;
  };
  assert.equal((await read<api.GetLinksByCodeResponse>('shortener://links/mcp-plain')).url, 'https://example.com/plain');
  assert.equal(
    (await read<api.GetLinksByCodeResponse>('shortener://domains/go.example.com/links/mcp-plain')).url,
    'https://example.com/branded',
  );
  const stats = await read<api.GetLinksByCodeStatsResponse>('shortener://links/mcp-plain/stats');
  assert.deepEqual([stats.code, stats.range.clicks, stats.daily.length], ['mcp-plain', 0, 30]);
  assert.equal((await read<api.GetLinksByCodeStatsResponse>('shortener://domains/go.example.com/links/mcp-plain/stats')).code, 'mcp-plain');

  await assert.rejects(mcp.readResource({ uri: 'shortener://links/mcp-nowhere' }), (err: Error & { code: number; data: unknown }) => {
    assert.equal(err.code, -32002);
    assert.match(err.message, /LINK_NOT_FOUND: /);
    assert.deepEqual(err.data, { code: 'LINK_NOT_FOUND', status: 404 });
    return true;
  });
});

test("over HTTP, a tool acts with its key's role and workspace, and the API's codes come back", async (t) => {
  const { base } = served;
  const { admin, member, viewer } = await workspace('roles');
  const other = await workspace('other');
  const asAdmin = await overHttp(t, base, { authorization: `Bearer ${admin.secret}` });
  await call(asAdmin, 'create_link', { url: 'https://example.com/roles', alias: 'mcp-roles' });

  assert.equal(await refusedWith(asAdmin, 'get_link', { code: 'mcp-missing' }), 'LINK_NOT_FOUND');
  assert.equal(await refusedWith(asAdmin, 'create_link', { url: 'ftp://example.com/file' }), 'URL_SCHEME_NOT_ALLOWED');
  assert.equal(await refusedWith(asAdmin, 'create_link', { url: 'https://example.com/again', alias: 'mcp-roles' }), 'ALIAS_TAKEN');
  // Input the schema refuses is the SDK's validation error, before any call of the API.
  const invalid = await call(asAdmin, 'create_link', { url: 'https://example.com/', alias: 'a/b', color: 'red' });
  assert.equal(invalid.isError, true);
  assert.match(invalid.text, /Input validation error/);
  assert.match((await call(asAdmin, 'update_link', { code: 'mcp-roles' })).text, /at least one field to change/);
  // What the API takes the schema takes too: a title with spaces around its 200 characters, a lower-case
  // RFC 3339 date-time, eleven tags of which two differ only in case.
  const loose = await call(asAdmin, 'create_link', {
    url: 'https://example.com/loose',
    title: `  ${'t'.repeat(200)}  `,
    expiresAt: '2099-01-31t23:59:59z',
    tags: ['Spring', 'spring', ...Array.from({ length: 9 }, (_, i) => `tag${i}`)],
  });
  assert.equal(loose.isError, false, loose.text);
  assert.deepEqual([loose.data.title?.length, loose.data.tags.length], [200, 10]);

  const asViewer = await overHttp(t, base, { authorization: `Bearer ${viewer.secret}` });
  assert.equal(await refusedWith(asViewer, 'create_link', { url: 'https://example.com/viewer' }), 'ROLE_FORBIDDEN');
  assert.equal((await call(asViewer, 'get_link', { code: 'mcp-roles' })).data.url, 'https://example.com/roles');
  const asMember = await overHttp(t, base, { authorization: `Bearer ${member.secret}` });
  assert.equal(await refusedWith(asMember, 'update_link', { code: 'mcp-roles', disabled: true }), 'API_KEY_NOT_OWNER');

  const asOther = await overHttp(t, base, { authorization: `Bearer ${other.admin.secret}` });
  assert.equal(await refusedWith(asOther, 'get_link', { code: 'mcp-roles' }), 'LINK_NOT_FOUND');
  assert.equal(await refusedWith(asOther, 'update_link', { code: 'mcp-roles', disabled: true }), 'LINK_NOT_FOUND');
  assert.deepEqual((await call(asOther, 'find_links', { q: 'mcp-roles' })).data.links, []);
  assert.equal((await call(asOther, 'list_links', {})).data.total, 0);
});

test('over HTTP, /mcp wants a good key before any message, on the API host only, by POST only', async () => {
  const { app, base } = served;
  const { admin } = await workspace('http');
  const refusal = async (res: Response | { status: number; json: () => unknown }) => [
    res.status,
    ((await res.json()) as { error: { code: string } }).error.code,
  ];

  assert.deepEqual(await refusal(await initializeRaw(base, {})), [401, 'API_KEY_REQUIRED']);
  assert.deepEqual(await refusal(await initializeRaw(base, { authorization: 'Bearer sk_made_up' })), [401, 'API_KEY_INVALID']);
  assert.deepEqual(await refusal(await initializeRaw(base, { authorization: admin.secret })), [401, 'API_KEY_INVALID']);
  const good = await initializeRaw(base, { authorization: `Bearer ${admin.secret}` });
  assert.equal(good.status, 200);
  assert.equal(((await good.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name, 'shortener');

  const onShortDomain = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { host: 'go.example.com', authorization: `Bearer ${admin.secret}` },
  });
  assert.deepEqual([onShortDomain.statusCode, onShortDomain.json().error.code], [404, 'ROUTE_NOT_ON_HOST']);
  const deleted = await fetch(`${base}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${admin.secret}` } });
  assert.deepEqual([...(await refusal(deleted)), deleted.headers.get('allow')], [405, 'METHOD_NOT_ALLOWED', 'POST']);
  // GET /mcp (the SDK's client asks it for a stream after connecting) reaches the route, not the redirect path.
  const got = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${admin.secret}`, accept: 'text/event-stream' } });
  assert.deepEqual([...(await refusal(got)), got.headers.get('allow')], [405, 'METHOD_NOT_ALLOWED', 'POST']);
  const tooLarge = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.secret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { padding: 'x'.repeat(16 * 1024) } }),
  });
  assert.deepEqual(await refusal(tooLarge), [413, 'BODY_TOO_LARGE']);
  const notJson = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.secret}`, 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  assert.deepEqual(await refusal(notJson), [415, 'UNSUPPORTED_MEDIA_TYPE']);
});

test('the key is checked within its client’s budget of credential look-ups, and the tools’ calls count as that client’s', async (t) => {
  const { app } = await startApp(
    t,
    database.url,
    { CREDENTIAL_LOOKUPS_PER_MINUTE: '2', NOT_FOUND_LIMIT_PER_MINUTE: '1' },
    { redirects: 'fastify' },
  );
  const { admin } = await workspace('budgets');
  /** POST /mcp of one JSON-RPC message from `remoteAddress` with `key`: the status and the API's error code, or the tool's. */
  const post = async (remoteAddress: string, key: string, method: string, params: Record<string, unknown>) => {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      remoteAddress,
      headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method, params },
    });
    const body = res.json<{ error?: { code: string }; result?: { structuredContent?: { error: { code: string } } } }>();
    return [res.statusCode, body.error?.code ?? body.result?.structuredContent?.error.code];
  };
  const ping = (remoteAddress: string, key: string) => post(remoteAddress, key, 'ping', {});
  /** A key of the right shape that no one has: only such keys are looked up. */
  const madeUp = (n: number) => `sk_${String(n).padStart(43, 'x')}`;

  // Keys this instance has not seen good, from one address: two look-ups a minute, then 429 before any.
  assert.deepEqual(await ping('198.51.100.1', madeUp(1)), [401, 'API_KEY_INVALID']);
  assert.deepEqual(await ping('198.51.100.1', madeUp(2)), [401, 'API_KEY_INVALID']);
  assert.deepEqual(await ping('198.51.100.1', admin.secret), [429, 'CREDENTIALS_RATE_LIMITED']);
  assert.deepEqual(await ping('198.51.100.2', admin.secret), [200, undefined]);

  // A QR code of an unknown code spends a 404 of the MCP request's client, not of the process.
  const missingQr = (remoteAddress: string) =>
    post(remoteAddress, admin.secret, 'tools/call', { name: 'qr_code', arguments: { code: 'mcp-nowhere' } });
  assert.deepEqual(await missingQr('198.51.100.2'), [200, 'LINK_NOT_FOUND']);
  assert.deepEqual(await missingQr('198.51.100.2'), [200, 'NOT_FOUND_RATE_LIMITED']);
  assert.deepEqual(await missingQr('198.51.100.3'), [200, 'LINK_NOT_FOUND']);
});

test('over stdio, the server started as a child process calls the service with its key; without a key it exits 2', async (t) => {
  const { base } = served;
  const { admin } = await workspace('stdio');
  // Started first, to exit while the other one works.
  const keyless = spawn(process.execPath, [STDIO_SERVER], {
    env: { PATH: process.env.PATH, SHORTENER_URL: base },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  keyless.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  keyless.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exitCode = new Promise<number | null>((resolve) => keyless.once('close', resolve));

  const mcp = new Client({ name: 'mcp-test', version: '1' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_SERVER],
      env: { SHORTENER_URL: base, SHORTENER_API_KEY: admin.secret },
      stderr: 'pipe',
    }),
  );
  t.after(() => mcp.close());
  assert.deepEqual((await mcp.listTools()).tools.map((tool) => tool.name).sort(), TOOLS);
  const created = await call(mcp, 'create_link', { url: 'https://example.com/stdio', alias: 'mcp-stdio' });
  assert.equal(created.data.shortUrl, `${base}/mcp-stdio`);
  assert.equal((await call(mcp, 'get_link', { code: 'mcp-stdio' })).data.url, 'https://example.com/stdio');

  assert.equal(await exitCode, 2);
  assert.match(stderr, /SHORTENER_API_KEY/);
  assert.equal(stdout, '', 'nothing but protocol on stdout');
});
