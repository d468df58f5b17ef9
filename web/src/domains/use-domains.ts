import { useApp } from '../auth/context.ts';
import { useLoad } from '../shared/use-load.ts';
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
  const { data, error, retry } = useLoad((signal) => listDomains(api, signal), 'domains');
  return { domains: data, error, reload: retry };
}
