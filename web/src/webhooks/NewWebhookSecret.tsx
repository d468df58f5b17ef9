import { useLayoutEffect, useRef } from 'preact/hooks';
import { SecretValue } from '../shared/SecretValue.tsx';
import type { CreatedWebhook } from './api.ts';

/** A new endpoint's signing secret, shown as it is made, with how a receiver checks a request with it. */
export function NewWebhookSecret({ created, onDone }: { created: CreatedWebhook; onDone: () => void }) {
  const box = useRef<HTMLElement>(null);
  useLayoutEffect(() => box.current?.focus(), [created.id]);
  return (
    <section class="panel secret" aria-labelledby="webhook-secret-heading" ref={box} tabIndex={-1}>
      <h2 id="webhook-secret-heading">Endpoint added: its signing secret</h2>
      <p class="break">
        Requests to <strong>{created.url}</strong> are signed with this secret. Give it to your receiver now (an admin can reveal it again
        from the endpoint).
      </p>
      <SecretValue id="new-webhook-secret" secret={created.secret} what="the endpoint's signing secret" />
      <VerifyNote />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

/** How a receiver checks that a request is ours (README: Webhooks). */
export function VerifyNote() {
  return (
    <div class="verify-note">
      <h3>Verify each request</h3>
      <p>
        Requests follow <a href="https://www.standardwebhooks.com/">Standard Webhooks</a>. With its library (
        <code>npm i standardwebhooks</code>), <code>new Webhook(secret).verify(rawBody, headers)</code> throws unless the request is ours.
        By hand: <code>webhook-signature</code> is <code>v1,</code> and the base64 HMAC-SHA256 of{' '}
        <code>webhook-id.webhook-timestamp.body</code> (the raw body), keyed with the secret’s bytes after <code>whsec_</code>{' '}
        (base64-decoded). Refuse a timestamp more than a few minutes off, and ignore a <code>webhook-id</code> you have processed already.
      </p>
    </div>
  );
}
