// The test event an admin sends to an endpoint on demand (POST /webhooks/:id/test): a message of its
// own type through the outbox like any event, so that it is signed, retried and logged as they are.
// No endpoint subscribes to it (it is not one of WEBHOOK_EVENTS); it goes to the one asked for, whatever its events.

import type { WebhookEvent } from '../core/webhooks.ts';

export const TEST_EVENT = 'webhook.test';

/** The `type` of a message in the outbox: an event of a link, or a test. */
export type MessageType = WebhookEvent | typeof TEST_EVENT;

/** What the outbox keeps of a test event (the body's `data`, body.ts). */
export interface TestEventData {
  readonly test: true;
  readonly workspace: { readonly id: number | string; readonly name: string };
  readonly webhook: { readonly id: number | string };
}

/** A test event's body's `data`: what it is, for whom, and that nothing happened to any link. */
export function testEventData(data: TestEventData) {
  return {
    test: true,
    message: 'A test event sent on demand: nothing happened to any link.',
    workspace: { id: Number(data.workspace.id), name: data.workspace.name },
    webhook: { id: Number(data.webhook.id) },
  };
}
