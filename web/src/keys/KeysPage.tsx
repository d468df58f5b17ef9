import { useEffect, useState } from 'preact/hooks';
import { errorMessage, isAbort } from '../api/errors.ts';
import { permissions, useApp } from '../auth/context.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { listKeys, type ApiKey, type CreatedKey } from './api.ts';
import { KeyTable } from './KeyTable.tsx';
import { NewKeyForm } from './NewKeyForm.tsx';
import { NewSecret } from './NewSecret.tsx';

/** API keys: an admin's view is the workspace's, a person's who is not an admin their own; list, create (the secret shown once) and revoke. */
export function KeysPage() {
  const { api, session } = useApp();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const allowed = permissions(session).canManageKeys;

  useEffect(() => {
    if (!allowed) return undefined;
    const abort = new AbortController();
    setError(null);
    listKeys(api, abort.signal).then(setKeys, (caught: unknown) => {
      if (!isAbort(caught)) setError(errorMessage(caught));
    });
    return () => abort.abort();
  }, [api, allowed, attempt]);

  if (!allowed) {
    return (
      <Page title="API keys">
        <p class="message message-info">Only admin keys can see and manage the workspace’s keys.</p>
      </Page>
    );
  }

  const onCreated = (key: CreatedKey) => {
    setCreated(key);
    setKeys((list) => [
      ...(list ?? []),
      { id: key.id, name: key.name, role: key.role, owner: key.owner, createdAt: key.createdAt, revokedAt: null },
    ]);
  };

  const onRevoked = (id: number) => {
    const now = new Date().toISOString();
    setKeys((list) => (list ?? []).map((k) => (k.id === id ? { ...k, revokedAt: k.revokedAt ?? now } : k)));
    // Read the list again for the service's dates; if this session's own key was revoked, that read is a 401
    // and the app goes to the sign-in page.
    setAttempt((n) => n + 1);
  };

  return (
    <Page title="API keys">
      <div class="keys-layout">
        <div>
          {created !== null && <NewSecret created={created} onDone={() => setCreated(null)} />}
          <NewKeyForm onCreated={onCreated} />
        </div>
        <section class="panel" aria-labelledby="keys-heading">
          <h2 id="keys-heading">
            {session.key.role === 'admin' ? `Keys of ${session.workspace.name}` : `Your keys in ${session.workspace.name}`}
          </h2>
          {error !== null ? (
            <ErrorMessage onRetry={() => setAttempt(attempt + 1)}>The keys could not be loaded: {error}</ErrorMessage>
          ) : keys === null ? (
            <p class="loading">Loading keys…</p>
          ) : (
            <KeyTable keys={keys} myId={session.key.id} onRevoked={onRevoked} />
          )}
        </section>
      </div>
    </Page>
  );
}
