// `shortener links list`: the workspace's links, one page (--limit a page), or every page with
// --all, following the API's keyset cursors. People get a table; --json gets one JSON array, written
// a page at a time as the pages arrive, so that --all never holds a whole workspace in memory.

import { Command, Option } from 'commander';
import type { Client } from '../client/client.ts';
import * as api from '../client/operations.ts';
import { integerIn } from './arguments.ts';
import { connect, wantsJson } from './config.ts';
import { count, fit, print, say, table } from './output.ts';

type Page = api.GetLinksResponses[200];
type ListedLink = Page['links'][number];
type ListQuery = NonNullable<api.GetLinksData['query']>;

interface ListOptions {
  q?: string;
  tag?: string;
  domain?: string;
  state?: string;
  sort?: string;
  limit?: number;
  cursor?: string;
  all?: boolean;
}

export const LINK_STATES = ['active', 'scheduled', 'limit_reached', 'expired', 'disabled'];

export function listCommand(): Command {
  return new Command('list')
    .description("the workspace's links, newest first: a table, or JSON with --json")
    .option('--q <text>', 'search the code, the target and the title (3-100 characters)')
    .option('--tag <tag>', 'only links with this tag')
    .option('--domain <host>', 'only links on this short domain')
    .addOption(new Option('--state <state>', 'only links in this state').choices(LINK_STATES))
    .addOption(new Option('--sort <order>', 'created (newest first) or clicks (most clicked first)').choices(['created', 'clicks']))
    .option('--limit <n>', 'links a page, 1-100 (the API default: 25)', integerIn(1, 100))
    .addOption(new Option('--cursor <cursor>', 'start at this page (the cursor a list before named)').conflicts('all'))
    .option('--all', 'every page, not only the first')
    .option('--json', 'print one JSON array of the links (with --all: of every page)')
    .action(async (options: ListOptions, command: Command) => {
      const client = await connect(command);
      const query = listQuery(options);
      const json = wantsJson(command);
      const { shown, last } = json
        ? await writeJson(client, query, options.all === true)
        : await writeTable(client, query, options.all === true);
      if (last.nextCursor !== null && options.all !== true) {
        const total = last.total === undefined ? '' : ` of ${count(last.total)}${last.totalAtLeast === true ? '+' : ''}`;
        say(`${count(shown)}${total} links shown; the next page: --cursor ${last.nextCursor}, or every page: --all`);
      } else if (shown === 0 && !json) {
        say('no links');
      }
    });
}

function listQuery(options: ListOptions): ListQuery {
  const query: ListQuery = {};
  if (options.q !== undefined) query.q = options.q;
  if (options.tag !== undefined) query.tag = options.tag;
  if (options.domain !== undefined) query.domain = options.domain;
  if (options.state !== undefined) query.state = options.state;
  if (options.sort !== undefined) query.sort = options.sort;
  if (options.limit !== undefined) query.limit = String(options.limit);
  if (options.cursor !== undefined) query.cursor = options.cursor;
  return query;
}

/** The pages of the list: the first (or the one `query.cursor` names), then, with `all`, each after it. */
async function* pages(client: Client, query: ListQuery, all: boolean): AsyncGenerator<Page> {
  let cursor = query.cursor;
  for (;;) {
    const { data } = await api.getLinks({ client, throwOnError: true, query: { ...query, ...(cursor === undefined ? {} : { cursor }) } });
    yield data;
    if (!all || data.nextCursor === null) return;
    cursor = data.nextCursor;
  }
}

interface Listed {
  shown: number;
  last: Page;
}

/** One JSON array, each link written as its page arrives (nothing at all if the first page fails). */
async function writeJson(client: Client, query: ListQuery, all: boolean): Promise<Listed> {
  let shown = 0;
  let last: Page | undefined;
  for await (const page of pages(client, query, all)) {
    if (last === undefined) process.stdout.write('[');
    for (const link of page.links) {
      process.stdout.write(`${shown === 0 ? '\n' : ',\n'}${JSON.stringify(link, null, 2).replace(/^/gm, '  ')}`);
      shown++;
    }
    last = page;
  }
  process.stdout.write(shown === 0 ? ']\n' : '\n]\n');
  return { shown, last: last as Page };
}

/** A table of every link listed: its columns are as wide as the widest cell of all the pages. */
async function writeTable(client: Client, query: ListQuery, all: boolean): Promise<Listed> {
  const links: ListedLink[] = [];
  let last: Page | undefined;
  for await (const page of pages(client, query, all)) {
    links.push(...page.links);
    last = page;
  }
  if (links.length > 0) {
    print(
      table(
        ['CODE', 'SHORT URL', 'CLICKS', 'TARGET'],
        links.map((link) => [link.code, link.shortUrl, count(link.clicks), fit(link.url, 60)]),
      ),
    );
  }
  return { shown: links.length, last: last as Page };
}
