// A webhook's body, rendered from what the outbox stored (webhooks/store.ts): the Standard Webhooks
// envelope {type, timestamp, data}, with each link as the API shows it (its short URL, its options
// without secrets). The same message renders to the same bytes on every try and every instance,
// as long as BASE_URL and the link's domain stay as they were.

import { shownOptions, type LinkOptions } from '../core/link-options.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { TEST_EVENT, testEventData, type MessageType, type TestEventData } from './test-event.ts';

/** What a body is rendered from: a claimed delivery's message. */
export interface StoredMessage {
  readonly type: MessageType;
  readonly data: Record<string, unknown>;
  readonly createdAt: Date;
}

interface StoredLink {
  domainId: number | string;
  domainHost: string | null;
  code: string;
  url: string;
  title: string | null;
  tags: string[] | null;
  expiresAt: string | null;
  disabled: boolean;
  deleted: boolean;
  version: number;
  options: LinkOptions | null;
  createdAt: string;
  /** Absent in events written before archives. */
  archivedAt?: string | null;
}

interface StoredCount {
  domainId: number | string;
  domainHost: string | null;
  code: string;
  day: string;
  clicks: number;
  botClicks: number;
}

/** A probe's result as health/store.ts and digest-store.ts wrote it: the status, failures in a row, and a time. */
interface StoredHealth {
  status: string | null;
  failures: number;
  checkedAt?: string | null;
  brokenSince?: string | null;
}

/** A timestamp as Postgres's jsonb wrote it, in RFC 3339 UTC with milliseconds. */
function isoOf(value: string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

function addressOf(urls: ShortUrls, stored: { domainId: number | string; domainHost: string | null; code: string }) {
  return urls.of({ domainId: Number(stored.domainId), code: stored.code, domainHost: stored.domainHost });
}

function linkOf(stored: StoredLink, urls: ShortUrls) {
  const { domain, shortUrl } = addressOf(urls, stored);
  return {
    code: stored.code,
    domain,
    shortUrl,
    url: stored.url,
    title: stored.title,
    tags: stored.tags ?? [],
    expiresAt: isoOf(stored.expiresAt),
    disabled: stored.disabled,
    deleted: stored.deleted,
    version: stored.version,
    createdAt: isoOf(stored.createdAt),
    archivedAt: isoOf(stored.archivedAt ?? null),
    options: shownOptions(stored.options),
  };
}

export function webhookBody(message: StoredMessage, urls: ShortUrls): string {
  const timestamp = message.createdAt.toISOString();
  if (message.type === TEST_EVENT) {
    return JSON.stringify({ type: message.type, timestamp, data: testEventData(message.data as unknown as TestEventData) });
  }
  if (message.type === 'link.clicked') {
    const counts = (message.data.counts as StoredCount[]).map((count) => {
      const { domain, shortUrl } = addressOf(urls, count);
      return { code: count.code, domain, shortUrl, day: count.day, clicks: count.clicks, botClicks: count.botClicks };
    });
    return JSON.stringify({ type: message.type, timestamp, data: { counts } });
  }
  if (message.type === 'workspace.health_digest') {
    const links = (message.data.links as (StoredLink & { health: StoredHealth })[]).map((stored) => ({
      link: linkOf(stored, urls),
      health: { ...stored.health, brokenSince: isoOf(stored.health.brokenSince ?? null) },
    }));
    return JSON.stringify({ type: message.type, timestamp, data: { day: message.data.day, total: message.data.total, links } });
  }
  const data: Record<string, unknown> = { link: linkOf(message.data as unknown as StoredLink, urls) };
  if (message.type === 'link.click_limit_reached') data.clickLimit = message.data.clickLimit;
  // The list that named the link's target (links/safety.ts).
  if (message.type === 'link.blocked' || message.type === 'link.flagged') data.blocklist = message.data.blocklist;
  // The probe that changed the link's health (health/store.ts): {status, failures, checkedAt}.
  if (message.type === 'link.target_broken' || message.type === 'link.target_recovered') {
    const health = message.data.health as StoredHealth;
    data.health = { ...health, checkedAt: isoOf(health.checkedAt ?? null) };
  }
  return JSON.stringify({ type: message.type, timestamp, data });
}
