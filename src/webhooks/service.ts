// The rules of webhook endpoints, between the routes and the store: an endpoint's fields checked
// (its URL as a link target, with private addresses as WEBHOOK_ALLOW_PRIVATE says), at most
// WEBHOOK_ENDPOINTS_MAX per workspace, its secret made here (Standard Webhooks' whsec_) and rotated
// with an overlap during which both sign, its delivery log read by pages. An endpoint another
// workspace has, or none, is a 404 alike. Each change is audited as its actor's (audit/audit.ts).

import { randomBytes } from 'node:crypto';
import { parseId } from '../core/ids.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { checkTargetUrl } from '../core/url-rules.ts';
import {
  checkDescription,
  checkEvents,
  DELIVERY_STATES,
  WEBHOOK_ENDPOINTS_MAX,
  type DeliveryState,
  type WebhookEvent,
} from '../core/webhooks.ts';
import { AppError } from '../errors.ts';
import type { Actor } from '../audit/audit.ts';
import type { DeliveryRecord } from './delivery-store.ts';
import type { EndpointFields, EndpointSecret, WebhookEndpoint, WebhookStore } from './store.ts';

const PAGE_DEFAULT = 50;
export const PAGE_MAX = 100;

/** An endpoint's fields as a body gives them. */
export interface FieldsIn {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | undefined;
  enabled?: boolean | undefined;
}

/** A page of the delivery log as a query asks for it. */
export interface PageIn {
  state?: string | undefined;
  before?: string | undefined;
  limit?: string | undefined;
}

/** A new signing secret: Standard Webhooks' whsec_ and base64 of 24 random bytes (192 bits). */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function endpointId(raw: string): number {
  const id = parseId(raw);
  if (id === undefined) throw new AppError('WEBHOOK_NOT_FOUND');
  return id;
}

/** What a query found of an endpoint; 404 when it found no such endpoint (undefined or false). */
function found<T>(value: T | undefined | false): T {
  if (value === undefined || value === false) throw new AppError('WEBHOOK_NOT_FOUND');
  return value;
}

/** The fields a body gives, checked (400 with the field named); those left out stay undefined. */
function checkFields(body: FieldsIn, policy: TargetPolicy): Partial<EndpointFields> {
  const fields: { url?: string; events?: WebhookEvent[]; description?: string; enabled?: boolean } = {};
  if (body.url !== undefined) {
    const verdict = checkTargetUrl(body.url, policy);
    if (!verdict.ok) throw new AppError(verdict.code, undefined, { field: 'url' });
    fields.url = verdict.url;
  }
  if (body.events !== undefined) {
    const checked = checkEvents(body.events);
    if (!checked.ok) throw new AppError(checked.code, undefined, { field: 'events' });
    fields.events = checked.events;
  }
  if (body.description !== undefined) {
    const description = checkDescription(body.description);
    if (description === undefined) throw new AppError('WEBHOOK_DESCRIPTION_INVALID', undefined, { field: 'description' });
    fields.description = description;
  }
  if (body.enabled !== undefined) fields.enabled = body.enabled;
  return fields;
}

export class WebhookService {
  readonly #store: WebhookStore;
  readonly #policy: TargetPolicy;
  readonly #overlapMs: number;

  /** `overlapMs`: how long a rotated secret still signs (WEBHOOK_SECRET_OVERLAP_HOURS). */
  constructor(store: WebhookStore, policy: TargetPolicy, overlapMs: number) {
    this.#store = store;
    this.#policy = policy;
    this.#overlapMs = overlapMs;
  }

  list(workspaceId: number): Promise<WebhookEndpoint[]> {
    return this.#store.endpoints(workspaceId);
  }

  /** Adds an endpoint with a new secret; 409 WEBHOOK_LIMIT_REACHED past the cap. */
  async add(workspaceId: number, body: FieldsIn, actor: Actor): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const fields = checkFields(body, this.#policy);
    const secret = newSecret();
    const created = await this.#store.add(
      workspaceId,
      {
        url: fields.url as string,
        events: fields.events as WebhookEvent[],
        description: fields.description ?? '',
        enabled: fields.enabled ?? true,
      },
      secret,
      WEBHOOK_ENDPOINTS_MAX,
      actor,
    );
    if (created === undefined) throw new AppError('WEBHOOK_LIMIT_REACHED');
    return { endpoint: created, secret };
  }

  async get(workspaceId: number, rawId: string): Promise<WebhookEndpoint> {
    return found(await this.#store.endpoint(workspaceId, endpointId(rawId)));
  }

  async change(workspaceId: number, rawId: string, body: FieldsIn, actor: Actor): Promise<WebhookEndpoint> {
    const id = endpointId(rawId);
    return found(await this.#store.change(workspaceId, id, checkFields(body, this.#policy), actor));
  }

  async remove(workspaceId: number, rawId: string, actor: Actor): Promise<void> {
    found(await this.#store.remove(workspaceId, endpointId(rawId), actor));
  }

  async secret(workspaceId: number, rawId: string): Promise<EndpointSecret> {
    return found(await this.#store.secret(workspaceId, endpointId(rawId)));
  }

  async rotate(workspaceId: number, rawId: string, actor: Actor): Promise<EndpointSecret> {
    const id = endpointId(rawId);
    return found(await this.#store.rotate(workspaceId, id, newSecret(), this.#overlapMs, actor));
  }

  /** A page of the endpoint's delivery log, newest first; 400 WEBHOOK_QUERY_INVALID for a query that asks for none. */
  async deliveries(workspaceId: number, rawId: string, query: PageIn): Promise<{ deliveries: DeliveryRecord[]; next: string | null }> {
    const { state, before, limit } = query;
    const page = {
      state: state === undefined ? undefined : (DELIVERY_STATES as readonly string[]).includes(state) ? (state as DeliveryState) : null,
      before: before === undefined ? undefined : (parseId(before) ?? null),
      limit: limit === undefined ? PAGE_DEFAULT : (parseId(limit) ?? 0),
    };
    if (page.state === null || page.before === null || page.limit < 1 || page.limit > PAGE_MAX) throw new AppError('WEBHOOK_QUERY_INVALID');
    const endpoint = await this.get(workspaceId, rawId);
    const deliveries = await this.#store.deliveries(endpoint.id, {
      state: page.state ?? undefined,
      before: page.before ?? undefined,
      limit: page.limit,
    });
    const last = deliveries.at(-1);
    return { deliveries, next: deliveries.length === page.limit && last !== undefined ? String(last.id) : null };
  }

  /**
   * Queues a test event for the endpoint, delivered as any event is (the outbox, the worker);
   * 409 WEBHOOK_DISABLED for a disabled endpoint, which is sent nothing.
   */
  async sendTest(workspaceId: number, rawId: string): Promise<DeliveryRecord> {
    const endpoint = await this.get(workspaceId, rawId);
    if (!endpoint.enabled) throw new AppError('WEBHOOK_DISABLED');
    return found(await this.#store.sendTest(workspaceId, endpoint.id));
  }

  /** Sends a delivery again (the same webhook-id); 404 WEBHOOK_DELIVERY_NOT_FOUND if the endpoint has no such delivery. */
  async resend(workspaceId: number, rawId: string, rawDelivery: string): Promise<DeliveryRecord> {
    const endpoint = await this.get(workspaceId, rawId);
    const deliveryId = parseId(rawDelivery);
    if (deliveryId === undefined) throw new AppError('WEBHOOK_DELIVERY_NOT_FOUND');
    const resent = await this.#store.resend(endpoint.id, deliveryId);
    if (resent === undefined) throw new AppError('WEBHOOK_DELIVERY_NOT_FOUND');
    return resent;
  }
}
