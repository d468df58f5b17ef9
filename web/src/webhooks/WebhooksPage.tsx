import { useEffect, useState } from 'preact/hooks';
import { errorMessage, isAbort } from '../api/errors.ts';
import { permissions, useApp } from '../auth/context.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { createWebhook, listWebhooks, type CreatedWebhook, type Webhook } from './api.ts';
import { NewWebhookSecret } from './NewWebhookSecret.tsx';
import { WebhookForm } from './WebhookForm.tsx';
import { WebhookList } from './WebhookList.tsx';
import { NEW_WEBHOOK_VALUES, newWebhook, type WebhookFormValues } from './webhooks.ts';

/** The workspace's webhook endpoints (admins only): add one (its secret shown), manage each, read and resend its deliveries. */
export function WebhooksPage() {
  const { api, session } = useApp();
  const announce = useAnnounce();
  const [webhooks, setWebhooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const allowed = permissions(session).canManageWebhooks;

  useEffect(() => {
    if (!allowed) return undefined;
    const abort = new AbortController();
    listWebhooks(api, abort.signal).then(
      (list) => {
        setError(null);
        setWebhooks(list);
      },
      (caught: unknown) => {
        if (!isAbort(caught)) setError(errorMessage(caught));
      },
    );
    return () => abort.abort();
  }, [api, allowed, attempt]);

  if (!allowed) {
    return (
      <Page title="Webhooks">
        <p class="message message-info">Only admin keys can manage the workspace’s webhooks.</p>
      </Page>
    );
  }

  const reload = () => setAttempt((n) => n + 1);

  const add = async (values: WebhookFormValues) => {
    const webhook = await createWebhook(api, newWebhook(values));
    announce(`Endpoint ${webhook.url} added`);
    setCreated(webhook);
    reload();
  };

  return (
    <Page title="Webhooks">
      <p class="page-intro">
        Endpoints are sent the workspace’s link events as they happen, signed, at least once: a failed delivery is tried again for about a
        day, then kept in its log as dead, to be resent from here.
      </p>
      {created !== null && <NewWebhookSecret created={created} onDone={() => setCreated(null)} />}
      <div class="webhooks-layout">
        <section class="panel" aria-labelledby="webhooks-heading">
          <h2 id="webhooks-heading">Endpoints of {session.workspace.name}</h2>
          {error !== null ? (
            <ErrorMessage onRetry={reload}>The endpoints could not be loaded: {error}</ErrorMessage>
          ) : webhooks === null ? (
            <p class="loading">Loading endpoints…</p>
          ) : (
            <WebhookList webhooks={webhooks} onChanged={reload} />
          )}
        </section>
        <section class="panel" aria-labelledby="new-webhook-heading">
          <h2 id="new-webhook-heading">Add an endpoint</h2>
          <WebhookForm
            mode="create"
            prefix="webhook-new"
            initial={NEW_WEBHOOK_VALUES}
            submitLabel="Add endpoint"
            busyLabel="Adding…"
            onSubmit={add}
          />
        </section>
      </div>
    </Page>
  );
}
