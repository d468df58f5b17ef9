import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { errorMessage, isAbort } from '../api/errors.ts';
import { listDomains, type Domain } from './api.ts';

export interface DomainsState {
  /** The workspace's domains, the default one first; null until they are read. */
  domains: Domain[] | null;
  error: string | null;
  /** Reads them again (after a change, or to retry). */
  reload: () => void;
}

/** The workspace's domains (GET /domains), read once per page that shows them. */
export function useDomains(): DomainsState {
  const { api } = useApp();
  const [domains, setDomains] = useState<Domain[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setError(null);
    listDomains(api, abort.signal).then(setDomains, (caught: unknown) => {
      if (!isAbort(caught)) setError(errorMessage(caught));
    });
    return () => abort.abort();
  }, [api, attempt]);

  return { domains, error, reload: () => setAttempt((n) => n + 1) };
}
