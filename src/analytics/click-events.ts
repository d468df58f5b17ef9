// The click stream's events (CLICK_STREAM=redis), made from the analytics' log (visits.ts) at each
// flush, never per request: a click there is already numbers (ids into the tables of the log's
// strings), so an event is those ids' strings joined, each string made once per batch and id. An
// event is one line of tab-separated values in EVENT_FIELDS order; a command's payload is its
// events joined by newlines, split and added to the stream by analytics/click-stream.ts's script. No
// address is here: the visitor is the salted sketch element the rollups keep (core/hll.ts).

import { splitKey, type LinkKey } from '../core/domains.ts';
import { hash32 } from '../core/hll.ts';
import type { AnalyticsPart } from '../core/dimensions.ts';
import { TARGET_VALUES } from '../core/redirect-rules.ts';
import { AGENT, ELEMENT, LANGUAGE, PLACE, REFERRER, SLOT, SOURCE, STRIDE, TARGET, type ClickLog, type Slots } from './fold.ts';

/** An event's fields after its ordinal `n` (which the script adds), in the payload's order. */
export const EVENT_FIELDS = [
  'time',
  'domain',
  'host',
  'code',
  'visitor',
  'bot',
  'country',
  'city',
  'device',
  'browser',
  'os',
  'referrer',
  'language',
  'source',
  'target',
] as const;

/** Most events in one command: a script of more would hold Redis up for longer than a cache lookup should wait. */
export const EVENTS_PER_COMMAND = 1000;

interface Values {
  readonly values: readonly string[];
}

/** What an event reads of the tables the log's ids point into (visits.ts Tables). */
export interface EventTables {
  readonly agentBot: readonly number[];
  readonly agentDevice: readonly number[];
  readonly agentBrowser: readonly number[];
  readonly agentOs: readonly number[];
  readonly placeCountry: readonly number[];
  readonly placeCity: readonly number[];
  readonly device: Values;
  readonly browser: Values;
  readonly os: Values;
  readonly country: Values;
  readonly city: Values;
  readonly referrer: Values;
  readonly language: Values;
}

/** Records [from, to) of a log, with what they need to be read: the turns' times, the slots' links, the tables. */
export interface LoggedClicks {
  readonly log: ClickLog;
  readonly from: number;
  readonly to: number;
  /** Where each turn's records start in the log, and its time (ms): records up to the next start are that turn's. */
  readonly turnStarts: readonly number[];
  readonly turnTimes: readonly number[];
  readonly slots: Slots;
  readonly tables: EventTables;
}

/** One command's worth: up to EVENTS_PER_COMMAND events of one shard. */
export interface EventBatch {
  readonly shard: number;
  readonly events: number;
  readonly payload: string;
}

export interface EventFormat {
  readonly shards: number;
  /** What analytics keeps: a dimension it does not keep is an empty value. */
  readonly parts: ReadonlySet<AnalyticsPart>;
  /** A domain's host name ('' if unknown). */
  hostOf(domainId: number): string;
}

/** Which of `shards` streams a link's events go to: always the same for a link, so that its events stay in order. */
export function shardOf(key: string, shards: number): number {
  return shards === 1 ? 0 : hash32(key, 0x5eed) % shards;
}

/** A dimension analytics does not keep: every value empty. */
function none(): string {
  return '';
}

/** Tabs and newlines would split a value: none comes from the parsers, but a geography database is outside input. */
function clean(value: string): string {
  return /[\t\n\r]/.test(value) ? value.replace(/[\t\n\r]/g, ' ') : value;
}

/** A value per id, made (cleaned) at its first use in this batch. */
function memo(values: readonly string[]): (id: number) => string {
  const made: (string | undefined)[] = [];
  return (id) => (made[id] ??= clean(values[id] ?? ''));
}

/** The events of `clicks` as payloads, per shard in log order, EVENTS_PER_COMMAND at most each. */
export function eventBatches(clicks: LoggedClicks, format: EventFormat): EventBatch[] {
  const { log, from, to, turnStarts, turnTimes, slots, tables } = clicks;
  const { parts, shards } = format;
  const data = log.data;
  const keeps = (part: AnalyticsPart) => parts.has(part);
  const agentBot = tables.agentBot;
  // Agent and place ids to their fields (three values and two), made once per batch.
  const device = keeps('device') ? memo(tables.device.values) : none;
  const browser = keeps('browser') ? memo(tables.browser.values) : none;
  const os = keeps('os') ? memo(tables.os.values) : none;
  const agentFields: (string | undefined)[] = [];
  const agentPart = (id: number) =>
    (agentFields[id] ??=
      `${device(tables.agentDevice[id] ?? 0)}\t${browser(tables.agentBrowser[id] ?? 0)}\t${os(tables.agentOs[id] ?? 0)}`);
  const country = keeps('country') ? memo(tables.country.values) : none;
  const city = keeps('city') ? memo(tables.city.values) : none;
  const placeFields: (string | undefined)[] = [];
  const placePart = (id: number) => (placeFields[id] ??= `${country(tables.placeCountry[id] ?? 0)}\t${city(tables.placeCity[id] ?? 0)}`);
  const referrer = keeps('referrer') ? memo(tables.referrer.values) : none;
  const language = keeps('language') ? memo(tables.language.values) : none;
  const target = keeps('target') ? memo(TARGET_VALUES) : none;
  const qr = keeps('source') ? ['link', 'qr'] : ['', ''];
  // Slot ids to their link's fields and shard.
  const slotFields: (string | undefined)[] = [];
  const slotShards: number[] = [];
  const hosts = new Map<number, string>();
  const slotPart = (s: number): string => {
    let made = slotFields[s];
    if (made === undefined) {
      const key = slots.keys[s] as LinkKey;
      const { domainId, code } = splitKey(key);
      let host = hosts.get(domainId);
      if (host === undefined) {
        host = clean(format.hostOf(domainId));
        hosts.set(domainId, host);
      }
      made = `${domainId}\t${host}\t${clean(code)}`;
      slotFields[s] = made;
      slotShards[s] = shardOf(key, shards);
    }
    return made;
  };
  const lines: string[][] = Array.from({ length: shards }, () => []);
  const batches: EventBatch[] = [];
  const close = (shard: number) => {
    const shardLines = lines[shard] as string[];
    batches.push({ shard, events: shardLines.length, payload: shardLines.join('\n') });
    lines[shard] = [];
  };
  // The first turn that has records at `from` or after.
  let turn = 0;
  while (turn + 1 < turnStarts.length && (turnStarts[turn + 1] as number) <= from) turn++;
  let turnEnd = turn + 1 < turnStarts.length ? (turnStarts[turn + 1] as number) : to;
  let time = String(turnTimes[turn] ?? Date.now());
  for (let r = from; r < to; r++) {
    while (r >= turnEnd) {
      turn++;
      turnEnd = turn + 1 < turnStarts.length ? (turnStarts[turn + 1] as number) : to;
      time = String(turnTimes[turn] ?? time);
    }
    const at = r * STRIDE;
    const slot = data[at + SLOT] as number;
    const link = slotPart(slot);
    const agent = data[at + AGENT] as number;
    const element = data[at + ELEMENT] as number;
    const line =
      `${time}\t${link}\t${element > 0 ? element : ''}\t${agentBot[agent] === 1 ? 1 : 0}\t${placePart(data[at + PLACE] as number)}\t` +
      `${agentPart(agent)}\t${referrer(data[at + REFERRER] as number)}\t${language(data[at + LANGUAGE] as number)}\t` +
      `${qr[data[at + SOURCE] as number] ?? ''}\t${target(data[at + TARGET] as number)}`;
    const shard = slotShards[slot] as number;
    const shardLines = lines[shard] as string[];
    shardLines.push(line);
    if (shardLines.length >= EVENTS_PER_COMMAND) close(shard);
  }
  for (let shard = 0; shard < shards; shard++) if ((lines[shard] as string[]).length > 0) close(shard);
  return batches;
}
