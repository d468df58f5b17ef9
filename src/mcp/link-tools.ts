// The tools that create, change, read and look for links. Each is one call of the typed client
// (client/operations.ts), so it acts with the API key's role in its workspace and is refused with
// the API's codes: an MCP client can do nothing here that the API would not let the key do.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Client } from '../client/client.ts';
import * as api from '../client/operations.ts';
import * as input from './inputs.ts';
import { answered, called } from './results.ts';
import { linkLine, pageSummary } from './summaries.ts';

/** The `domain` query of a link's routes, when one is named. */
const onDomain = (domain: string | undefined) => (domain === undefined ? {} : { query: { domain } });

const READS = { readOnlyHint: true, openWorldHint: false } as const;

const CreateInput = z.strictObject({
  url: input.url,
  alias: input.alias.optional(),
  domain: input.domain.optional(),
  title: input.title.optional(),
  tags: input.tags.optional(),
  expiresAt: input.dateTime
    .optional()
    .describe('When the link stops redirecting (RFC 3339 with a zone, e.g. "2030-01-31T23:59:59Z"); leave out for never.'),
  startsAt: input.dateTime
    .optional()
    .describe('When the link starts redirecting (RFC 3339 with a zone), before expiresAt; leave out for at once.'),
});

const UpdateInput = z
  .strictObject({
    code: input.code,
    domain: input.domain.optional(),
    url: input.url.optional().describe('A new target: an absolute http:// or https:// URL.'),
    title: input.title.nullable().optional().describe('A new title; null or "" removes it.'),
    tags: input.tags.optional().describe('Replaces every tag of the link; [] removes them all.'),
    expiresAt: input.dateTime.nullable().optional().describe('A new expiry (RFC 3339 with a zone), or null for never.'),
    startsAt: input.dateTime.nullable().optional().describe('A new start (RFC 3339 with a zone), or null to redirect at once.'),
    disabled: z.boolean().optional().describe('true: the link answers 410 Gone until enabled again (false).'),
  })
  .refine((change) => Object.keys(change).some((field) => field !== 'code' && field !== 'domain'), {
    message: 'Give at least one field to change: url, title, tags, expiresAt, startsAt or disabled.',
  });

const FindInput = z
  .strictObject({
    q: input.search.optional(),
    tag: input.tag.optional(),
    domain: input.domain.optional().describe('Only links on the short domain with this host.'),
    state: input.state.optional(),
    limit: input.limit.optional(),
    cursor: input.cursor.optional(),
  })
  .refine((query) => query.q !== undefined || query.tag !== undefined || query.domain !== undefined || query.state !== undefined, {
    message: 'Give at least one of q, tag, domain or state; list_links pages through every link.',
  });

const ListInput = z.strictObject({
  limit: input.limit.optional(),
  cursor: input.cursor.optional(),
  sort: z.enum(['created', 'clicks']).optional().describe('"created": newest first (the default); "clicks": most clicked by people first.'),
});

/** GET /links with `query`'s filters, its numbers as the API's query strings. */
async function page(client: Client, query: { limit?: number | undefined } & Record<string, string | number | undefined>) {
  const { limit, ...rest } = query;
  const { data } = await api.getLinks({
    client,
    throwOnError: true,
    query: input.definedOnly({ ...rest, limit: limit === undefined ? undefined : String(limit) }),
  });
  return answered(pageSummary(data), data);
}

export function registerLinkTools(server: McpServer, client: Client): void {
  server.registerTool(
    'create_link',
    {
      title: 'Create a short link',
      description:
        "Shortens a URL: creates a link in the API key's workspace and answers its short URL (structuredContent: the link). " +
        'The code is generated unless `alias` is given (ALIAS_TAKEN if that alias is in use on the domain). Each call makes a new ' +
        'link: to avoid a duplicate, look first with find_links. Needs a member or admin key (a viewer gets ROLE_FORBIDDEN).',
      inputSchema: CreateInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (link) =>
      called(async () => {
        const { data } = await api.postLinks({ client, throwOnError: true, body: input.definedOnly(link) });
        return answered(`Created ${linkLine(data)}`, data);
      }),
  );

  server.registerTool(
    'update_link',
    {
      title: 'Change a link',
      description:
        "Changes a link's target URL, title, tags, start, expiry or disabled state (only the fields given) and answers the link as " +
        'it is now. Every redirect follows the change at once. An admin changes any link of the workspace, a member only those its ' +
        'key created (API_KEY_NOT_OWNER otherwise). The code itself cannot change.',
      inputSchema: UpdateInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ code, domain, ...change }) =>
      called(async () => {
        const { data } = await api.patchLinksByCode({
          client,
          throwOnError: true,
          path: { code },
          ...onDomain(domain),
          body: input.definedOnly(change),
        });
        return answered(`Changed ${linkLine(data)}`, data);
      }),
  );

  server.registerTool(
    'get_link',
    {
      title: 'Read a link',
      description:
        "Reads one link of the key's workspace by its code: target, title, tags, state (active, scheduled, limit_reached, expired, " +
        'disabled), clicks, creator and options. LINK_NOT_FOUND if no link of the workspace has this code on that domain.',
      inputSchema: z.strictObject({ code: input.code, domain: input.domain.optional() }),
      annotations: READS,
    },
    ({ code, domain }) =>
      called(async () => {
        const { data } = await api.getLinksByCode({ client, throwOnError: true, path: { code }, ...onDomain(domain) });
        return answered(linkLine(data), data);
      }),
  );

  server.registerTool(
    'find_links',
    {
      title: 'Find links',
      description:
        "Searches the key's workspace for links: by text (`q`, in the code, the target URL and the title), tag, short domain or " +
        'state, newest first. Answers a page of links and, when there are more, a nextCursor to pass back (with the same filters).',
      inputSchema: FindInput,
      annotations: READS,
    },
    (query) => called(() => page(client, query)),
  );

  server.registerTool(
    'list_links',
    {
      title: 'List links',
      description:
        "Pages through every link of the key's workspace, newest first (or most clicked first). Answers the page and a nextCursor " +
        'to pass as `cursor` for the next one (null on the last page); the first page also counts the links.',
      inputSchema: ListInput,
      annotations: READS,
    },
    (query) => called(() => page(client, query)),
  );
}
