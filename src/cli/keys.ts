// `shortener keys list|create|revoke`: the workspace's API keys. A created key's secret is printed
// once, alone on stdout (so `KEY=$(shortener keys create ci --role member)` keeps it), and is never
// shown again: the service keeps only its hash.

import { Command, Option } from 'commander';
import * as api from '../client/operations.ts';
import { connect, wantsJson } from './config.ts';
import { confirm, print, printJson, say, table } from './output.ts';

type Role = api.PostKeysData['body']['role'];

const ROLES = ['admin', 'member', 'viewer'] as const satisfies readonly Role[];

export function keysCommand(): Command {
  const keys = new Command('keys').description("the workspace's API keys");

  keys
    .command('list')
    .description('the keys: id, name, role, owner, created, revoked (never a secret)')
    .option('--json', 'print JSON')
    .action(async (_options: unknown, command: Command) => {
      const client = await connect(command);
      const { data } = await api.getKeys({ client, throwOnError: true });
      if (wantsJson(command)) return printJson(data.keys);
      print(
        table(
          ['ID', 'NAME', 'ROLE', 'OWNER', 'CREATED', 'REVOKED'],
          data.keys.map((key) => [String(key.id), key.name, key.role, key.owner?.name ?? '-', key.createdAt, key.revokedAt ?? '-']),
        ),
      );
    });

  keys
    .command('create')
    .description('create a key and print its secret, this once')
    .argument('<name>', 'who or what uses the key')
    .addOption(new Option('--role <role>', 'what the key may do').choices(ROLES).makeOptionMandatory())
    .option('--json', 'print the key as JSON, its secret included')
    .action(async (name: string, options: { role: Role }, command: Command) => {
      const client = await connect(command);
      const { data } = await api.postKeys({ client, throwOnError: true, body: { name, role: options.role } });
      if (wantsJson(command)) printJson(data);
      else print(data.key);
      say(`created key ${data.id} (${data.name}, ${data.role}): its secret is shown this once, keep it now`);
    });

  keys
    .command('revoke')
    .description('revoke a key (asks first, unless --yes); every instance refuses it within 10 s')
    .argument('<id>', "the key's id (keys list shows it)")
    .option('-y, --yes', 'do not ask (needed when stdin is not a terminal)')
    .option('--json', 'print {"id", "revoked"} as JSON')
    .action(async (id: string, options: { yes?: boolean }, command: Command) => {
      const client = await connect(command);
      await confirm(`Revoke the key ${id}?`, options.yes === true);
      await api.deleteKeysById({ client, throwOnError: true, path: { id } });
      if (wantsJson(command)) printJson({ id: Number(id), revoked: true });
      else say(`revoked key ${id}`);
    });

  return keys;
}
