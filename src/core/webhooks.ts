// What a webhook endpoint may ask for, and when a failed delivery is tried again. Pure: no I/O.

import type { ErrorCode } from '../errors.ts';
import { codePoints } from './field-values.ts';

/** The events an endpoint may take, as the `type` of their bodies. */
export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.expiring',
  'link.expired',
  'link.click_limit_reached',
  'link.clicked',
  'link.blocked',
  'link.flagged',
  'link.target_broken',
  'link.target_recovered',
  'workspace.health_digest',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Endpoints a workspace may have. */
export const WEBHOOK_ENDPOINTS_MAX = 20;
export const WEBHOOK_DESCRIPTION_MAX = 200;

/** The events asked for, without repeats, in WEBHOOK_EVENTS's order; or why they cannot be. */
export function checkEvents(events: readonly string[]): { ok: true; events: WebhookEvent[] } | { ok: false; code: ErrorCode } {
  if (events.length === 0) return { ok: false, code: 'WEBHOOK_EVENTS_INVALID' };
  const asked = new Set(events);
  for (const event of asked)
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) return { ok: false, code: 'WEBHOOK_EVENTS_INVALID' };
  return { ok: true, events: WEBHOOK_EVENTS.filter((event) => asked.has(event)) };
}

/** A description as stored (trimmed), or undefined if it may not be one. */
export function checkDescription(description: string): string | undefined {
  const trimmed = description.trim();
  // eslint-disable-next-line no-control-regex
  if (codePoints(trimmed) > WEBHOOK_DESCRIPTION_MAX || /[\u0000-\u001f\u007f]/.test(trimmed)) return undefined;
  return trimmed;
}

/**
 * How long after its `attempts`-th failed try a delivery is tried again: the schedule's delay
 * (WEBHOOK_RETRY_SCHEDULE), give or take 20 % (`random` in [0, 1)) so that the deliveries that
 * failed together do not come back together; undefined once the schedule is spent (dead letter).
 */
export function retryDelayMs(attempts: number, schedule: readonly number[], random: number): number | undefined {
  const delay = schedule[attempts - 1];
  if (delay === undefined) return undefined;
  return Math.round(delay * (0.8 + 0.4 * random));
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "5s,5m,30m,2h" as milliseconds; undefined if a part is not a positive number with ms, s, m or h. */
export function parseSchedule(text: string): number[] | undefined {
  const delays: number[] = [];
  for (const part of text.split(',')) {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(part);
    if (match === null) return undefined;
    const ms = Number(match[1]) * (UNITS[match[2] as string] as number);
    if (!(ms > 0)) return undefined;
    delays.push(ms);
  }
  return delays;
}

/** The states of a delivery in the log. */
export const DELIVERY_STATES = ['pending', 'sending', 'delivered', 'dead'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
