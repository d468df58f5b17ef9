// Where a command finds the service and its key: the global flags, then the environment
// (SHORTENER_URL, SHORTENER_API_KEY), then a profile of the config file ($SHORTENER_CONFIG, else
// $XDG_CONFIG_HOME/shortener/config.json, else ~/.config/shortener/config.json). A profile named
// with --profile is asked for on the command line, so it comes before the environment. The file
// holds keys: it is written with mode 0600, and a looser one is warned about.

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { shortenerClient, type Client } from '../client/client.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { say } from './output.ts';

export interface Profile {
  url?: string;
  key?: string;
}

/** The config file: named profiles; any other field is kept as it was when the file is written. */
export interface ConfigFile {
  profiles: Record<string, Profile>;
  [field: string]: unknown;
}

/** The global flags, as the root command parsed them (a subcommand may have a --url of its own). */
export interface GlobalOptions {
  url?: string;
  key?: string;
  profile?: string;
  json?: boolean;
}

export const DEFAULT_PROFILE = 'default';

const PROFILE_NAME = /^[\w.-]{1,64}$/;

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SHORTENER_CONFIG !== undefined && env.SHORTENER_CONFIG !== '') return env.SHORTENER_CONFIG;
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'shortener', 'config.json');
}

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new CliError('PROFILE_NAME_INVALID', 'a profile name is 1 to 64 characters of A-Z a-z 0-9 _ . -', EXIT.usage);
  }
  return name;
}

/** The file at `path`; no profiles when there is no file. */
export async function readConfig(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError('CONFIG_UNREADABLE', `cannot read ${path}: ${(error as Error).message}`, EXIT.usage);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError('CONFIG_INVALID', `${path} is not JSON`, EXIT.usage);
  }
  const profiles = isObject(parsed) ? (parsed.profiles ?? {}) : undefined;
  if (!isObject(parsed) || !isObject(profiles) || !Object.values(profiles).every(isProfile)) {
    throw new CliError('CONFIG_INVALID', `${path} must hold {"profiles": {"<name>": {"url": "…", "key": "…"}}}`, EXIT.usage);
  }
  return { ...parsed, profiles: profiles as Record<string, Profile> };
}

/** Writes the profile `name` into the file at `path`, merged with what it holds, readable by its owner only. */
export async function saveProfile(path: string, name: string, profile: Profile): Promise<void> {
  const config = await readConfig(path);
  config.profiles[name] = { ...config.profiles[name], ...profile };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Written whole beside it and renamed over it: a failure never leaves half a file, and the key is
  // never readable by others, not even for a moment (the mode is set as the file is created).
  // A name nobody can guess, created here ('wx': never a file someone else made first, whose mode would stay theirs).
  const temporary = `${path}.${randomBytes(8).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The root command's options: the global flags. */
export function globalOptions(command: Command): GlobalOptions {
  let root = command;
  while (root.parent !== null) root = root.parent;
  return root.opts<GlobalOptions>();
}

/** Whether to print JSON: --json before the command (global) or after it. */
export function wantsJson(command: Command): boolean {
  return globalOptions(command).json === true || command.opts<{ json?: boolean }>().json === true;
}

/** The service's base URL and the key to send, from the flags, the environment or a profile. */
export async function resolveConnection(command: Command): Promise<{ baseUrl: string; key: string }> {
  const flags = globalOptions(command);
  const env = { url: nonEmpty(process.env.SHORTENER_URL), key: nonEmpty(process.env.SHORTENER_API_KEY) };
  const named = flags.profile !== undefined;
  const needsProfile = named || (flags.url ?? env.url) === undefined || (flags.key ?? env.key) === undefined;
  const profile = needsProfile ? await profileOf(flags.profile) : {};
  const url = named ? (flags.url ?? profile.url ?? env.url) : (flags.url ?? env.url ?? profile.url);
  const key = named ? (flags.key ?? profile.key ?? env.key) : (flags.key ?? env.key ?? profile.key);
  if (url === undefined) {
    throw new CliError(
      'URL_MISSING',
      "no service URL: give --url, set SHORTENER_URL, or save a profile ('shortener profile set default --url https://… --key …')",
      EXIT.usage,
    );
  }
  if (key === undefined) {
    throw new CliError(
      'KEY_MISSING',
      "no API key: set SHORTENER_API_KEY, save one in a profile ('shortener profile set default --url … --key …'), or give --key",
      EXIT.denied,
    );
  }
  return { baseUrl: checkBaseUrl(url), key };
}

/** A client of the service, signed in with the key the command resolves. */
export async function connect(command: Command): Promise<Client> {
  const { baseUrl, key } = await resolveConnection(command);
  return shortenerClient({ baseUrl, key });
}

/** An http(s) URL, without its trailing slashes (the client appends each path to it). */
export function checkBaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError('URL_INVALID', `the service URL "${url}" is not an absolute http(s) URL`, EXIT.usage);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError('URL_INVALID', `the service URL must start with http:// or https://, not ${parsed.protocol}`, EXIT.usage);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new CliError('URL_INVALID', 'the service URL must not hold a user name or password', EXIT.usage);
  }
  return url.replace(/\/+$/, '');
}

async function profileOf(name: string | undefined): Promise<Profile> {
  const path = configPath();
  const config = await readConfig(path);
  const profile = config.profiles[name ?? DEFAULT_PROFILE];
  if (profile === undefined) {
    if (name === undefined) return {};
    throw new CliError('PROFILE_NOT_FOUND', `no profile "${name}" in ${path} ('shortener profile list' shows them)`, EXIT.usage);
  }
  if (profile.key !== undefined) await warnIfReadableByOthers(path);
  return profile;
}

async function warnIfReadableByOthers(path: string): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) say(`warning: ${path} holds API keys and others may read it: chmod 600 ${path}`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function isProfile(value: unknown): value is Profile {
  return isObject(value) && ['url', 'key'].every((field) => value[field] === undefined || typeof value[field] === 'string');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
