#!/usr/bin/env node
// `shortener`: the service's command line (docs/cli.md). Each command is a client of the HTTP API
// through the typed client (src/client/), signed in with an API key found by config.ts. Results go
// to stdout, messages to stderr, and the exit code says what happened (exit-codes.ts).

import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { resolveConnection } from './config.ts';
import { domainsCommand } from './domains.ts';
import { EXIT, exitCodeOf, exitCodesHelp } from './exit-codes.ts';
import { exportCommand, importCommand } from './import-export.ts';
import { keysCommand } from './keys.ts';
import { linksCommand } from './links.ts';
import { profileCommand } from './profile.ts';
import { reportError } from './output.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const CONFIGURATION_HELP = `
Where the service and the key come from, first found first:
  --url, --key         flags, given before the command (shortener --url https://sho.rt links list)
  SHORTENER_URL, SHORTENER_API_KEY
  a profile            of $SHORTENER_CONFIG, else $XDG_CONFIG_HOME/shortener/config.json, else
                       ~/.config/shortener/config.json: "default", or the one --profile names
                       (which then comes before the environment); see 'shortener profile set --help'

Exit codes:
${exitCodesHelp()}`;

function shortenerProgram(): Command {
  const program = new Command('shortener')
    .description('Create, list, change and import short links of a shortener service, from a terminal or a script.')
    .version(version)
    // Options after a command are that command's: `links update --url` is a new target, not the service.
    .enablePositionalOptions()
    .option('--url <url>', "the service's base URL, e.g. https://sho.rt (else $SHORTENER_URL, else the profile)")
    .option('--key <key>', 'an API key (else $SHORTENER_API_KEY, else the profile); others on this machine can read it in ps: prefer those')
    .option('--profile <name>', 'the profile of the config file to use (default: "default")')
    .option('--json', 'print results as JSON (every command also takes --json after it)')
    .showHelpAfterError("(add --help for the command's options)")
    .addHelpText('after', CONFIGURATION_HELP)
    .exitOverride();

  program.addCommand(linksCommand());
  program.addCommand(importCommand());
  program.addCommand(exportCommand());
  program.addCommand(keysCommand());
  program.addCommand(domainsCommand());
  program.addCommand(profileCommand());
  program
    .command('mcp')
    .description('serve the MCP tools over stdio, for an AI client, with the URL and key found as above')
    .action(async (_options: unknown, command: Command) => {
      const { baseUrl, key } = await resolveConnection(command);
      // Loaded only here: no other command pays for the MCP SDK.
      const { serveMcpOverStdio } = await import('../mcp/stdio.ts');
      await serveMcpOverStdio({ baseUrl, key });
    });
  inheritSettings(program);
  return program;
}

/** Commands made apart and added (addCommand) do not inherit the program's settings: exit handling, help after errors. */
function inheritSettings(parent: Command): void {
  for (const child of parent.commands) {
    child.copyInheritedSettings(parent);
    inheritSettings(child);
  }
}

async function main(): Promise<void> {
  // A reader that stops early (`| head`) is not an error; it is told nothing more.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.success);
    reportError(error);
    process.exit(EXIT.error);
  });
  try {
    await shortenerProgram().parseAsync(process.argv);
  } catch (error) {
    // Commander has printed its own message (a bad flag, a missing argument) or the help asked for.
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT.success : EXIT.usage;
      return;
    }
    reportError(error);
    process.exitCode = exitCodeOf(error);
  }
}

await main();
