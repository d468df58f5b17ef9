// `shortener profile set|list`: named services and their keys in the config file (config.ts), so
// that no key has to sit in a shell's history or in `ps`. A listing says whether a profile has a
// key, never what it is.

import { text } from 'node:stream/consumers';
import { Command, Option } from 'commander';
import { CliError, EXIT } from './exit-codes.ts';
import { checkBaseUrl, checkProfileName, configPath, readConfig, saveProfile, wantsJson, type Profile } from './config.ts';
import { print, printJson, say, table } from './output.ts';

interface SetOptions {
  url?: string;
  key?: string;
  keyStdin?: boolean;
}

export function profileCommand(): Command {
  const profile = new Command('profile').description('named services and keys, in the config file');

  profile
    .command('set')
    .description('save or change a profile (the file is written with mode 0600)')
    .argument('<name>', `the profile's name ("default" is used when --profile is not given)`)
    .option('--url <url>', "the service's base URL, e.g. https://sho.rt")
    .addOption(new Option('--key <key>', 'the API key (visible to others in ps: prefer --key-stdin)').conflicts('keyStdin'))
    .option('--key-stdin', 'read the API key from stdin')
    .addHelpText('after', '\nExample:\n  printf %s "$KEY" | shortener profile set work --url https://sho.rt --key-stdin')
    .action(async (name: string, options: SetOptions) => {
      checkProfileName(name);
      const key = options.keyStdin === true ? (await text(process.stdin)).trim() : options.key;
      if (options.url === undefined && key === undefined) {
        throw new CliError('NOTHING_TO_SAVE', 'give --url, --key or --key-stdin', EXIT.usage);
      }
      if (key === '') throw new CliError('KEY_EMPTY', 'the API key read from stdin is empty', EXIT.usage);
      const saved: Profile = {};
      if (options.url !== undefined) saved.url = checkBaseUrl(options.url);
      if (key !== undefined) saved.key = key;
      const path = configPath();
      await saveProfile(path, name, saved);
      say(`saved profile "${name}" in ${path}`);
    });

  profile
    .command('list')
    .description('the profiles: name, URL, and whether a key is saved (never the key)')
    .option('--json', 'print JSON')
    .action(async (_options: unknown, command: Command) => {
      const path = configPath();
      const profiles = Object.entries((await readConfig(path)).profiles).map(([name, saved]) => ({
        name,
        url: saved.url ?? null,
        hasKey: saved.key !== undefined,
      }));
      if (wantsJson(command)) return printJson(profiles);
      if (profiles.length === 0) return say(`no profiles in ${path}`);
      print(
        table(
          ['NAME', 'URL', 'KEY'],
          profiles.map(({ name, url, hasKey }) => [name, url ?? '-', hasKey ? 'saved' : '-']),
        ),
      );
    });

  return profile;
}
