// Destination blocklists: which lists are read, from where, how often, and what is never blocked
// (links/blocklists.ts loads them). Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { Type } from 'typebox';
import { LIST_FORMATS, type BlocklistFormat } from '../core/blocklist/parse.ts';
import { isReadableFile, minutesAsMs, optional, type Settings } from './schema.ts';

/** One list of BLOCKLISTS: `name=format:source`, the source a file path or an http(s) URL. */
export interface BlocklistSource {
  readonly name: string;
  readonly format: BlocklistFormat;
  readonly source: string;
  readonly remote: boolean;
}

const FORMATS: readonly string[] = [...LIST_FORMATS, 'auto'];
const ENTRY = /^([a-z0-9-]{1,40})=([a-z-]+):(.+)$/;

function sourceOf(item: string): BlocklistSource | undefined {
  const match = ENTRY.exec(item.trim());
  if (match === null || !FORMATS.includes(match[2] ?? '')) return undefined;
  const source = (match[3] ?? '').trim();
  const remote = /^https?:\/\//i.test(source);
  if (remote && URL.parse(source) === null) return undefined;
  return { name: match[1] ?? '', format: match[2] as BlocklistFormat, source, remote };
}

function sourcesOf(raw: string): (BlocklistSource | undefined)[] {
  return raw.split(',').map(sourceOf);
}

/** The name of the deployment's own list (operator_blocklist), which no configured list may take. */
export const OPERATOR_LIST = 'operator';
/** The name a suspended workspace's links are blocked under (operators/suspension.ts), which no configured list may take either. */
export const SUSPENDED_LIST = 'suspended';

function isBlocklists(raw: string): boolean {
  const sources = sourcesOf(raw);
  const names = sources.map((source) => source?.name);
  return (
    sources.every((source) => source !== undefined) &&
    new Set(names).size === names.length &&
    !names.includes(OPERATOR_LIST) &&
    !names.includes(SUSPENDED_LIST)
  );
}

export const BLOCKLIST_SETTINGS = {
  blocklists: {
    env: 'BLOCKLISTS',
    schema: Type.Decode(optional(Type.Refine(Type.String(), isBlocklists)), (raw): readonly BlocklistSource[] =>
      raw === undefined ? [] : (sourcesOf(raw) as BlocklistSource[]),
    ),
    expected:
      `comma-separated name=format:source, each name unique, not "${OPERATOR_LIST}" nor "${SUSPENDED_LIST}", and of 1 to 40 of a-z, 0-9 and "-", the format one of ${FORMATS.join(', ')}, ` +
      'the source a file path or an http(s) URL',
    doc:
      'destination blocklists no link may point into: comma-separated `name=format:source`, the format `domains`, `hosts`, `adblock`, ' +
      '`urls`, `phishtank-csv` or `auto`, the source a file or an http(s) URL ' +
      '(`urlhaus=urls:https://urlhaus.abuse.ch/downloads/text/,local=domains:/etc/shortener/blocked.txt`); ' +
      'a create or change whose target is on one gets `400 URL_BLOCKLISTED`. A list that cannot be read at start-up is empty until ' +
      'it can be ([Destination blocklists](security.md#destination-blocklists))',
  },
  blocklistAction: {
    env: 'BLOCKLIST_ACTION',
    schema: Type.Enum(['block', 'warn'], { default: 'block' }),
    doc:
      "what is done to a link made before a list named its target, once a list (or the operators' own) gains an entry " +
      'that matches it: `block`, its redirect answers `451 LINK_BLOCKED` (a page saying why, for a browser); `warn`, every ' +
      'visitor gets a warning page naming the target and the list, with a link on. Each such link is sent as a `link.blocked` ' +
      'or `link.flagged` event',
  },
  blocklistAllowFile: {
    env: 'BLOCKLIST_ALLOW_FILE',
    schema: optional(Type.Refine(Type.String(), isReadableFile)),
    expected: 'the path of a readable file',
    doc: 'a file of domains (with their subdomains) and URLs no blocklist blocks, in any of the formats; read with the lists',
  },
  blocklistRefreshMs: {
    env: 'BLOCKLIST_REFRESH_MINUTES',
    schema: minutesAsMs(Type.Integer({ minimum: 5, maximum: 7 * 24 * 60, default: 60 })),
    doc: 'how often every blocklist is read again; a list that fails to load keeps its last good version',
  },
  blocklistMaxBytes: {
    env: 'BLOCKLIST_MAX_BYTES',
    schema: Type.Integer({ minimum: 1024, maximum: 1024 ** 3, default: 64 * 1024 * 1024 }),
    doc: 'the most bytes one blocklist source may have: a larger one fails to load (and its last good version stays)',
  },
} satisfies Settings;
