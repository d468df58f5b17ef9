// The machinery behind src/config/config.ts: a setting is one environment variable declared once, and from
// its declaration come its check, its value's type, its error message and its row in docs/configuration.md's table.

import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { Type, type StaticDecode, type TInteger, type TNumberOptions, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { normaliseDomain } from '../core/target-policy.ts';
import { trustProxyRule } from '../core/trust-proxy.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** One environment variable. */
interface Setting {
  readonly env: string;
  /**
   * What the trimmed value must be, with TypeBox's `default` as the environment would hold it (none:
   * unset, and the schema takes undefined); a codec turns it into the configuration's value.
   */
  readonly schema: TSchema;
  /** The "meaning" column of docs/configuration.md's table, markdown. */
  readonly doc: string;
  /** What the message tells a bad value to be, where the schema cannot say it (strings). */
  readonly expected?: string;
  /** The default that table shows, where it is not the schema's. */
  readonly shownDefault?: string;
  /** A default computed from settings declared above this one, as the environment would hold it. */
  fallback?(config: Readonly<Record<string, unknown>>): unknown;
  /**
   * The value holds a secret (a key, or a URL with a password): a message about it names the
   * variable and the value's length, never the value.
   */
  readonly secret?: true;
}

export type Settings = Readonly<Record<string, Setting>>;

/** Each setting's decoded value, under its key. */
export type Decoded<S extends Settings> = { readonly [K in keyof S]: StaticDecode<S[K]['schema']> };

/** Thrown by a codec whose value passed the schema but not a closer look; its lines are the messages. */
class SettingProblems extends Error {
  readonly lines: readonly string[];
  constructor(lines: readonly string[]) {
    super(lines.join('; '));
    this.lines = lines;
  }
}

/** Every setting's value, and one message per bad variable (which takes its default, so that the cross-field rules still run). */
export function decodeSettings<S extends Settings>(settings: S, env: Env): { config: Decoded<S>; problems: string[] } {
  const config: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, setting] of Object.entries(settings)) {
    const fallback = setting.fallback?.(config) ?? Value.Default(setting.schema, undefined);
    const read = readSetting(setting, env[setting.env], fallback);
    config[key] = read.problems.length === 0 ? read.value : Value.Decode(setting.schema, fallback);
    problems.push(...read.problems);
  }
  return { config: config as Decoded<S>, problems };
}

function readSetting(setting: Setting, raw: string | undefined, fallback: unknown): { value?: unknown; problems: readonly string[] } {
  const text = raw?.trim() ?? '';
  const value = text === '' ? fallback : fromEnv(setting.schema, text);
  if (!Value.Check(setting.schema, value)) return { problems: [`${shownValue(setting, raw)}: expected ${expected(setting)}`] };
  try {
    return { value: Value.Decode(setting.schema, value), problems: [] };
  } catch (err) {
    if (err instanceof SettingProblems) return { problems: err.lines };
    throw err;
  }
}

/** `NAME="value"` in a message; a secret's value is not shown, only its length. */
export function shownValue(setting: Pick<Setting, 'env' | 'secret'>, raw: string | undefined): string {
  if (setting.secret === true) return `${setting.env} (${raw?.length ?? 0} characters, not shown)`;
  return `${setting.env}=${JSON.stringify(raw)}`;
}

// Only digits (and, for a number that need not be whole, digits with a decimal point) and booleans
// are converted: Value.Convert alone would also read '1.5', '0x1f', '1e3' and 'true' as integers.
function fromEnv(schema: TSchema, text: string): unknown {
  const digits = Type.IsNumber(schema) ? /^\d+(\.\d+)?$/ : /^\d+$/;
  return digits.test(text) || Type.IsBoolean(schema) ? Value.Convert(schema, text) : text;
}

/** "an integer from 0 to 65535", "true or false", "one of …", or the setting's own words. */
function expected(setting: Setting): string {
  const { schema } = setting;
  if (setting.expected !== undefined) return setting.expected;
  const { minimum, maximum } = schema as TNumberOptions;
  if (Type.IsInteger(schema) && minimum !== undefined && maximum !== undefined) return `an integer from ${minimum} to ${maximum}`;
  if (Type.IsBoolean(schema)) return 'true or false';
  if (Type.IsEnum(schema)) return `one of ${schema.enum.join(', ')}`;
  throw new Error(`${setting.env}: its schema does not say what it expects; give it an expected text`);
}

// ---------------------------------------------------------------------------------------------
// Schemas of what environment variables hold

/** Unset is a value of its own (undefined). */
export function optional<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Undefined()]);
}

/** Seconds in the environment, milliseconds in the configuration. */
export function secondsAsMs(seconds: TInteger) {
  return Type.Decode(seconds, (value: number) => value * 1000);
}

/** Minutes in the environment, milliseconds in the configuration. */
export function minutesAsMs(minutes: TInteger) {
  return Type.Decode(minutes, (value: number) => value * 60_000);
}

/** Hours in the environment, milliseconds in the configuration. */
export function hoursAsMs(hours: TInteger) {
  return Type.Decode(hours, (value: number) => value * 3_600_000);
}

/**
 * Where a redirect may send a browser from a setting: a path of this service (not `//host`, which
 * browsers read as another host) or an absolute http(s) URL; `none` is kept as it is.
 */
export function isRedirectTarget(raw: string): boolean {
  if (raw === 'none') return true;
  if (raw.startsWith('/')) return /^\/(?![/\\])[\x21-\x7e]*$/.test(raw);
  const url = URL.parse(raw);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && /^[\x21-\x7e]+$/.test(raw);
}

/** An absolute http(s) URL a redirect may send a browser to. */
export function isAbsoluteRedirect(raw: string): boolean {
  return !raw.startsWith('/') && raw !== 'none' && isRedirectTarget(raw);
}

/** A host name (letters, digits, dots, hyphens; a port is allowed and left out), or `*`. */
export function isHostName(raw: string): boolean {
  return raw === '*' || /^[A-Za-z0-9.-]+(?::\d+)?$/.test(raw) || /^\[[0-9A-Fa-f:.]+\](?::\d+)?$/.test(raw);
}

/** A DNS server as node:dns `Resolver#setServers` takes one: an IP address, with a port after it (IPv6 in brackets then). */
export function isDnsServer(raw: string): boolean {
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(raw);
  const v4 = /^([0-9.]+)(?::(\d{1,5}))?$/.exec(raw);
  const plain = v6 === null && v4 === null && isIP(raw) === 6 ? [raw, raw, undefined] : null;
  const match = v6 ?? v4 ?? plain;
  if (match === null) return false;
  const port = match[2] === undefined ? 53 : Number(match[2]);
  return isIP(match[1] ?? '') !== 0 && port >= 1 && port <= 65_535;
}

/** A comma-separated list (unset: empty) of at most `maxItems` items that each pass `isItem`. */
export function commaList(isItem: (item: string) => boolean, maxItems = Number.POSITIVE_INFINITY) {
  const valid = (raw: string) => {
    const items = commaItems(raw);
    return items.length <= maxItems && items.every(isItem);
  };
  return Type.Decode(optional(Type.Refine(Type.String(), valid)), (raw): readonly string[] => (raw === undefined ? [] : commaItems(raw)));
}

function commaItems(raw: string): string[] {
  return raw.split(',').map((item) => item.trim());
}

const HOST_PORT = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/;

/**
 * `host:port` with a port from 1 to 65535, or null; the host as Redis announces one: lowercase, an
 * IPv6 address compressed and without brackets (`[2001:DB8:0::5]` is `2001:db8::5`).
 */
function hostPort(raw: string): { host: string; port: number } | null {
  const match = HOST_PORT.exec(raw);
  const port = Number(match?.[2]);
  if (match === null || port < 1 || port > 65535) return null;
  const host = match[1] ?? '';
  const canonical = URL.parse(`http://${host}:${port}`)?.hostname;
  if (canonical === undefined || canonical === '') return null;
  return { host: canonical.replace(/^\[(.*)\]$/, '$1'), port };
}

function natPairs(raw: string): string[][] {
  return commaItems(raw).map((item) => item.split('='));
}

function isNatMap(raw: string): boolean {
  return natPairs(raw).every((pair) => pair.length === 2 && pair.every((side) => hostPort(side) !== null));
}

/** `announced=reachable` pairs of host:port, comma-separated (unset: none), as ioredis's natMap. */
export function natMap() {
  return Type.Decode(optional(Type.Refine(Type.String(), isNatMap)), (raw): Readonly<Record<string, { host: string; port: number }>> => {
    const map: Record<string, { host: string; port: number }> = {};
    for (const [announced = '', reachable = ''] of raw === undefined ? [] : natPairs(raw)) {
      const from = hostPort(announced);
      const to = hostPort(reachable);
      // ioredis looks a node up as `host:port`, an IPv6 host without brackets.
      if (from !== null && to !== null) map[`${from.host}:${from.port}`] = to;
    }
    return map;
  });
}

/** An integer from `range`, or `auto`: one per CPU. */
export function countOrAuto(range: { minimum: number; maximum: number; default: number }) {
  const schema = Type.Union([Type.Integer({ minimum: range.minimum, maximum: range.maximum }), Type.Literal('auto')], {
    default: range.default,
  });
  return Type.Decode(schema, (count) => (count === 'auto' ? availableParallelism() : count));
}

/** An http(s) origin, kept without a trailing slash. */
export function origin() {
  return Type.Decode(Type.Refine(Type.String(), isOrigin), (url) => url.replace(/\/+$/, ''));
}

/** Comma-separated domains, normalised; unset: none. */
export function domainList(env: string) {
  return Type.Decode(optional(Type.String()), (raw): ReadonlySet<string> => domainSet(env, raw?.split(',') ?? []));
}

/** The domains of a file, one a line, `#` for comments; unset: none. */
export function domainFile(env: string) {
  return Type.Decode(optional(Type.String()), (path): ReadonlySet<string> => (path === undefined ? new Set() : fileDomains(env, path)));
}

export function isReadableFile(raw: string): boolean {
  try {
    accessSync(raw, constants.R_OK);
    return statSync(raw).isFile();
  } catch {
    return false;
  }
}

export function isTrustProxy(raw: string): boolean {
  try {
    trustProxyRule(raw);
    return true;
  } catch {
    return false;
  }
}

/** A URL whose scheme is one of `protocols` ('postgres:', …). */
export function urlOf(protocols: readonly string[]) {
  return (raw: string): boolean => {
    const url = URL.parse(raw);
    return url !== null && protocols.includes(url.protocol);
  };
}

function isOrigin(raw: string): boolean {
  const url = URL.parse(raw);
  return (
    url !== null &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    (url.pathname === '/' || url.pathname === '') &&
    url.search === '' &&
    url.hash === ''
  );
}

function fileDomains(env: string, path: string): ReadonlySet<string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SettingProblems([`${env}=${JSON.stringify(path)}: cannot be read (${(err as Error).message})`]);
  }
  return domainSet(`${env} (${path})`, text.split(/\r?\n/));
}

/** The normalised domains of `entries` (blank and `#` lines skipped); throws naming those that are not domains. */
function domainSet(where: string, entries: readonly string[]): ReadonlySet<string> {
  const domains = new Set<string>();
  const problems: string[] = [];
  for (const entry of entries.map((line) => line.trim())) {
    if (entry === '' || entry.startsWith('#')) continue;
    const domain = normaliseDomain(entry);
    if (domain === undefined) problems.push(`${where}: ${JSON.stringify(entry)} is not a domain name`);
    else domains.add(domain);
  }
  if (problems.length > 0) throw new SettingProblems(problems);
  return domains;
}

// ---------------------------------------------------------------------------------------------
// docs/configuration.md's table

export function configTable(settings: Settings): string {
  const rows = Object.values(settings).map((setting) => `| \`${setting.env}\` | ${shownDefault(setting)} | ${setting.doc} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

function shownDefault(setting: Setting): string {
  if (setting.shownDefault !== undefined) return setting.shownDefault;
  const value: unknown = Value.Default(setting.schema, undefined);
  if (value === undefined) return 'unset';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return `\`${value}\``;
  throw new Error(`${setting.env}: a default the README cannot show; give it a shownDefault`);
}
