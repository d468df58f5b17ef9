import { useApp } from '../auth/context.ts';
import { getWorkspace } from '../people/api.ts';
import { useLoad } from '../shared/use-load.ts';
import { listDomains, type Domain } from './api.ts';

export interface DomainsState {
  /** The workspace's domains, the default one first; null until they are read. */
  domains: Domain[] | null;
  /**
   * The host a create that names no domain goes on: the workspace's default domain (Settings), else the
   * deployment's; undefined until the domains are read.
   */
  defaultHost: string | undefined;
  error: string | null;
  /** Reads them again (after a change, or to retry). */
  reload: () => void;
}

/** The workspace's domains (GET /domains) and its default one (GET /workspace), read once per page that shows them. */
export function useDomains(): DomainsState {
  const { api } = useApp();
  const { data, error, retry } = useLoad(async (signal) => {
    const [domains, workspace] = await Promise.all([
      listDomains(api, signal),
      // The settings say which domain is the workspace's default; without them, the deployment's is.
      getWorkspace(api, signal).catch(() => null),
    ]);
    return { domains, defaultDomain: workspace?.defaultDomain ?? null };
  }, 'domains');
  const domains = data?.domains ?? null;
  const defaultHost = data === null ? undefined : (data.defaultDomain ?? domains?.find((d) => d.isDefault)?.host);
  return { domains, defaultHost, error, reload: retry };
}
