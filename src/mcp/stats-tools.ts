// The tools that read clicks and draw QR codes: GET /links/{code}/stats, GET /stats and
// GET /links/{code}/qr, each one call of the typed client, with the key's role and workspace.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Client } from '../client/client.ts';
import * as api from '../client/operations.ts';
import * as input from './inputs.ts';
import { answered, called } from './results.ts';
import { statsSummary } from './summaries.ts';

const READS = { readOnlyHint: true, openWorldHint: false } as const;

/** The QR route's bounds (links/qr-routes.ts, which keeps them to itself; the OpenAPI document states them). */
const QR_SIZE_MIN = 64;
const QR_SIZE_MAX = 2048;
const QR_MARGIN_MAX = 16;

const QrInput = z.strictObject({
  code: input.code,
  domain: input.domain.optional(),
  format: z.enum(['png', 'svg']).optional().describe('"png" (the default here): an image; "svg": the SVG markup as text.'),
  size: z
    .number()
    .int()
    .min(QR_SIZE_MIN)
    .max(QR_SIZE_MAX)
    .optional()
    .describe(`Pixels per side, ${QR_SIZE_MIN}–${QR_SIZE_MAX} (default 256).`),
  margin: z
    .number()
    .int()
    .min(0)
    .max(QR_MARGIN_MAX)
    .optional()
    .describe(`Quiet zone around the code, in modules, 0–${QR_MARGIN_MAX} (default 4).`),
  level: z.enum(['L', 'M', 'Q', 'H']).optional().describe('Error correction: L, M (the default), Q or H (more is sturdier and denser).'),
});

export function registerStatsTools(server: McpServer, client: Client): void {
  server.registerTool(
    'link_stats',
    {
      title: "A link's clicks",
      description:
        "A link's clicks over a period of UTC days (the last 30 by default): clicks by people and by bots, unique visitors " +
        '(an estimate), clicks per day and, if asked, per referrer, country, city, device, browser, OS, language, source or ' +
        'target. Counts are as of the last flush, a few seconds behind. Any key of the workspace.',
      inputSchema: z.strictObject({ code: input.code, domain: input.domain.optional(), ...input.statsPeriod }),
      annotations: READS,
    },
    ({ code, domain, ...period }) =>
      called(async () => {
        const { data } = await api.getLinksByCodeStats({
          client,
          throwOnError: true,
          path: { code },
          query: { ...input.statsQuery(period), ...(domain === undefined ? {} : { domain }) },
        });
        return answered(`${code}: ${statsSummary(data)}`, data);
      }),
  );

  server.registerTool(
    'workspace_stats',
    {
      title: "The workspace's clicks",
      description:
        "The clicks of every link of the key's workspace over a period of UTC days (the last 30 by default), or of the links " +
        'with one tag: totals, per day, the most clicked links and, if asked, per dimension (as link_stats). Any key of the workspace.',
      inputSchema: z.strictObject({ ...input.statsPeriod, tag: input.tag.optional().describe('Only the links with this tag.') }),
      annotations: READS,
    },
    ({ tag, ...period }) =>
      called(async () => {
        const { data } = await api.getStats({
          client,
          throwOnError: true,
          query: { ...input.statsQuery(period), ...(tag === undefined ? {} : { tag }) },
        });
        return answered(statsSummary(data), data);
      }),
  );

  server.registerTool(
    'qr_code',
    {
      title: "A link's QR code",
      description:
        "The QR code of a link's short URL (scans are counted as such in its stats): a PNG image by default, or SVG markup. " +
        'Only for a link that redirects now (LINK_NOT_FOUND, or 410 for an expired or disabled link, otherwise).',
      inputSchema: QrInput,
      annotations: READS,
    },
    ({ code, domain, format = 'png', size, margin, level }) =>
      called(async () => {
        const query = input.definedOnly({
          format,
          domain,
          level,
          size: size === undefined ? undefined : String(size),
          margin: margin === undefined ? undefined : String(margin),
        });
        const { data } = await api.getLinksByCodeQr({ client, throwOnError: true, path: { code }, query });
        if (format === 'svg') return { content: [{ type: 'text', text: await data.text() }] };
        const png = Buffer.from(await data.arrayBuffer()).toString('base64');
        return { content: [{ type: 'image', data: png, mimeType: 'image/png' }] };
      }),
  );
}
