// `shortener links create|get|update|delete`, each one request of the typed client; the list and
// the stats, which page and tabulate, are in links-list.ts and links-stats.ts.

import { Command, Option } from 'commander';
import type { Client } from '../client/client.ts';
import * as api from '../client/operations.ts';
import { collect, dateTimeOrNone, onDomain } from './arguments.ts';
import { connect, wantsJson } from './config.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { listCommand } from './links-list.ts';
import { statsCommand } from './links-stats.ts';
import { confirm, count, print, printJson, say } from './output.ts';

type Link = api.GetLinksByCodeResponses[200];

interface CreateOptions {
  alias?: string;
  domain?: string;
  title?: string;
  tag?: string[];
  expiresAt?: string;
  startsAt?: string;
}

interface UpdateOptions {
  domain?: string;
  url?: string;
  title?: string;
  tag?: string[];
  clearTags?: boolean;
  expiresAt?: string | null;
  startsAt?: string | null;
  disable?: boolean;
  enable?: boolean;
}

const DOMAIN_HELP = 'the short domain the link is on (default: the default domain)';

export function linksCommand(): Command {
  const links = new Command('links').description('create, list, read, change and delete short links');

  links
    .command('create')
    .description('create a short link and print its short URL')
    .argument('<url>', 'the target: an absolute http(s) URL')
    .option('--alias <alias>', 'a custom code: 3-64 characters of A-Z a-z 0-9 _ -')
    .option('--domain <host>', 'a short domain of the workspace (default: the default domain)')
    .option('--title <title>', 'a title, shown in lists and searched')
    .option('--tag <tag>', 'a tag (repeat for more)', collect)
    .option('--expires-at <date-time>', 'when it stops redirecting (RFC 3339, e.g. 2030-01-01T00:00:00Z)')
    .option('--starts-at <date-time>', 'when it starts redirecting (RFC 3339)')
    .option('--json', 'print the whole link as JSON')
    .action(async (url: string, options: CreateOptions, command: Command) => {
      const client = await connect(command);
      const { data } = await api.postLinks({ client, throwOnError: true, body: { url, ...createBody(options) } });
      if (wantsJson(command)) printJson(data);
      else print(data.shortUrl);
    });

  links.addCommand(listCommand());

  links
    .command('get')
    .description("a link's target, title, tags, state and clicks")
    .argument('<code>', 'the short code')
    .option('--domain <host>', DOMAIN_HELP)
    .option('--json', 'print the link as JSON')
    .action(async (code: string, options: { domain?: string }, command: Command) => {
      const client = await connect(command);
      const { data } = await api.getLinksByCode({ client, throwOnError: true, path: { code }, query: onDomain(options.domain) });
      showLink(data, wantsJson(command));
    });

  links.addCommand(updateCommand());

  links
    .command('delete')
    .description('delete a link (asks first, unless --yes)')
    .argument('<code>', 'the short code')
    .option('--domain <host>', DOMAIN_HELP)
    .option('-y, --yes', 'do not ask (needed when stdin is not a terminal)')
    .option('--json', 'print {"code", "deleted"} as JSON')
    .action(async (code: string, options: { domain?: string; yes?: boolean }, command: Command) => {
      const client = await connect(command);
      await confirm(`Delete the link ${code}${options.domain === undefined ? '' : ` on ${options.domain}`}?`, options.yes === true);
      await api.deleteLinksByCode({ client, throwOnError: true, path: { code }, query: onDomain(options.domain) });
      if (wantsJson(command)) printJson({ code, deleted: true });
      else say(`deleted ${code}`);
    });

  links.addCommand(statsCommand());
  return links;
}

function updateCommand(): Command {
  return new Command('update')
    .description('change a link: give only what changes')
    .argument('<code>', 'the short code')
    .option('--domain <host>', DOMAIN_HELP)
    .option('--url <url>', 'a new target')
    .option('--title <title>', 'a new title ("" removes it)')
    .addOption(new Option('--tag <tag>', 'the tags, replacing all of them (repeat for more)').argParser(collect).conflicts('clearTags'))
    .option('--clear-tags', 'remove every tag')
    .option('--expires-at <date-time>', 'a new expiry (RFC 3339), or "none" for never', dateTimeOrNone)
    .option('--starts-at <date-time>', 'a new start (RFC 3339), or "none" to redirect at once', dateTimeOrNone)
    .addOption(new Option('--disable', 'the link answers 410 until enabled again').conflicts('enable'))
    .option('--enable', 'the link redirects again')
    .option('--json', 'print the changed link as JSON')
    .action(async (code: string, options: UpdateOptions, command: Command) => {
      const body = updateBody(options);
      if (Object.keys(body).length === 0) {
        throw new CliError(
          'NOTHING_TO_CHANGE',
          'give what changes: --url, --title, --tag, --clear-tags, --expires-at, --starts-at, --disable or --enable',
          EXIT.usage,
        );
      }
      const client: Client = await connect(command);
      const { data } = await api.patchLinksByCode({ client, throwOnError: true, path: { code }, query: onDomain(options.domain), body });
      showLink(data, wantsJson(command));
    });
}

function createBody(options: CreateOptions): Omit<api.PostLinksData['body'], 'url'> {
  return {
    ...(options.alias === undefined ? {} : { alias: options.alias }),
    ...(options.domain === undefined ? {} : { domain: options.domain }),
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.tag === undefined ? {} : { tags: options.tag }),
    ...(options.expiresAt === undefined ? {} : { expiresAt: options.expiresAt }),
    ...(options.startsAt === undefined ? {} : { startsAt: options.startsAt }),
  };
}

function updateBody(options: UpdateOptions): api.PatchLinksByCodeData['body'] {
  const tags = options.clearTags === true ? [] : options.tag;
  const disabled = options.disable === true ? true : options.enable === true ? false : undefined;
  return {
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.title === undefined ? {} : { title: options.title === '' ? null : options.title }),
    ...(tags === undefined ? {} : { tags }),
    ...(options.expiresAt === undefined ? {} : { expiresAt: options.expiresAt }),
    ...(options.startsAt === undefined ? {} : { startsAt: options.startsAt }),
    ...(disabled === undefined ? {} : { disabled }),
  };
}

/** A link as JSON, or as one labelled line a field. */
function showLink(link: Link, json: boolean): void {
  if (json) return printJson(link);
  const fields: [string, string][] = [
    ['code', link.code],
    ['short URL', link.shortUrl],
    ['target', link.url],
    ['title', link.title ?? '-'],
    ['tags', link.tags.length === 0 ? '-' : link.tags.join(', ')],
    ['state', link.state],
    ['starts', link.startsAt ?? '-'],
    ['expires', link.expiresAt ?? 'never'],
    ['created', link.createdAt],
    ['clicks', `${count(link.clicks)} by people, ${count(link.botClicks)} by bots`],
  ];
  if (link.options !== null) fields.push(['options', JSON.stringify(link.options)]);
  const width = Math.max(...fields.map(([label]) => label.length));
  for (const [label, value] of fields) print(`${label.padEnd(width)}  ${value}`);
}
