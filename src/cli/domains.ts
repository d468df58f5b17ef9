// `shortener domains list|add|verify|remove`: the workspace's short domains. A domain added starts
// pending: it serves nothing until the TXT record `add` prints is published and `verify` finds it.

import { Command } from 'commander';
import * as api from '../client/operations.ts';
import { connect, wantsJson } from './config.ts';
import { confirm, count, print, printJson, say, table } from './output.ts';

type Domain = api.PostDomainsResponses[201];

interface AddOptions {
  rootRedirect?: string;
  notFoundRedirect?: string;
  expiredRedirect?: string;
}

export function domainsCommand(): Command {
  const domains = new Command('domains').description("the workspace's short domains");

  domains
    .command('list')
    .description('the domains: host, verification, links on it')
    .option('--json', 'print JSON')
    .action(async (_options: unknown, command: Command) => {
      const client = await connect(command);
      const { data } = await api.getDomains({ client, throwOnError: true });
      if (wantsJson(command)) return printJson(data.domains);
      print(
        table(
          ['HOST', 'STATUS', 'LINKS'],
          data.domains.map((domain) => [
            domain.host,
            domain.isDefault ? 'default' : (domain.verification?.status ?? '-'),
            count(domain.links),
          ]),
        ),
      );
    });

  domains
    .command('add')
    .description('add a domain (admins); it serves links once its TXT record is verified')
    .argument('<host>', 'a host name, e.g. go.example.com')
    .option('--root-redirect <url>', 'where the domain root goes')
    .option('--not-found-redirect <url>', 'where an unknown code goes (instead of a 404)')
    .option('--expired-redirect <url>', 'where an expired or disabled link goes (instead of a 410)')
    .option('--json', 'print the domain as JSON')
    .action(async (host: string, options: AddOptions, command: Command) => {
      const client = await connect(command);
      const { data } = await api.postDomains({ client, throwOnError: true, body: { host, ...options } });
      if (wantsJson(command)) return printJson(data);
      showDomain(data);
      const record = data.verification?.record;
      if (record !== undefined) {
        say(`publish this DNS record, then run: shortener domains verify ${data.host}`);
        print(`${record.type} ${record.name} "${record.value}"`);
      }
    });

  domains
    .command('verify')
    .description("look up the domain's TXT record now (admins)")
    .argument('<host>', 'the domain')
    .option('--json', 'print the domain as JSON')
    .action(async (host: string, _options: unknown, command: Command) => {
      const client = await connect(command);
      const { data } = await api.postDomainsByHostVerify({ client, throwOnError: true, path: { host } });
      if (wantsJson(command)) printJson(data);
      else showDomain(data);
    });

  domains
    .command('remove')
    .description('remove a domain (admins; asks first, unless --yes)')
    .argument('<host>', 'the domain')
    .option('--move-links-to <host>', "move its links to this domain (else a domain with live links can't be removed)")
    .option('-y, --yes', 'do not ask (needed when stdin is not a terminal)')
    .option('--json', 'print {"host", "removed"} as JSON')
    .action(async (host: string, options: { moveLinksTo?: string; yes?: boolean }, command: Command) => {
      const client = await connect(command);
      await confirm(`Remove the domain ${host}?`, options.yes === true);
      const query = options.moveLinksTo === undefined ? {} : { moveLinksTo: options.moveLinksTo };
      await api.deleteDomainsByHost({ client, throwOnError: true, path: { host }, query });
      if (wantsJson(command)) printJson({ host, removed: true });
      else say(`removed ${host}`);
    });

  return domains;
}

function showDomain(domain: Domain): void {
  print(`${domain.host}: ${domain.isDefault ? 'default' : (domain.verification?.status ?? '-')}, ${count(domain.links)} links`);
}
