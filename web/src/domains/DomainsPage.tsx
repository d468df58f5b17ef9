import { permissions, useApp } from '../auth/context.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { createDomain } from './api.ts';
import { DomainForm } from './DomainForm.tsx';
import { DomainList } from './DomainList.tsx';
import { NO_DOMAIN_VALUES, newDomain, type DomainFormValues } from './domains.ts';
import { useDomains } from './use-domains.ts';

/** The workspace's short domains (admins only): what to set up first, add one, its fallbacks, remove it. */
export function DomainsPage() {
  const { api, session } = useApp();
  const announce = useAnnounce();
  const { domains, error, reload } = useDomains();

  if (!permissions(session).canManageDomains) {
    return (
      <Page title="Domains">
        <p class="message message-info">Only admin keys can manage the workspace’s short domains.</p>
      </Page>
    );
  }

  const add = async (values: DomainFormValues) => {
    const created = await createDomain(api, newDomain(values));
    announce(`Domain ${created.host} added`);
    reload();
  };

  return (
    <Page title="Domains">
      <div class="domains-layout">
        <section class="panel" aria-labelledby="new-domain-heading">
          <h2 id="new-domain-heading">Add a domain</h2>
          <SetUpFirst />
          <DomainForm mode="create" initial={NO_DOMAIN_VALUES} submitLabel="Add domain" busyLabel="Adding…" onSubmit={add} />
        </section>
        <section class="panel" aria-labelledby="domains-heading">
          <h2 id="domains-heading">Domains of {session.workspace.name}</h2>
          {error !== null ? (
            <ErrorMessage onRetry={reload}>The domains could not be loaded: {error}</ErrorMessage>
          ) : domains === null ? (
            <p class="loading">Loading domains…</p>
          ) : (
            <DomainList domains={domains} onChanged={reload} />
          )}
        </section>
      </div>
    </Page>
  );
}

/** What the operator does outside the dashboard: the service answers for a domain only once requests for it reach it. */
function SetUpFirst() {
  return (
    <div class="setup">
      <p>Links can use a short domain of your own, such as go.example.com. Before adding one:</p>
      <ol>
        <li>
          <strong>Point its DNS at this deployment:</strong> a CNAME record to the service’s host name, or A and AAAA records to its
          addresses.
        </li>
        <li>
          <strong>Serve TLS for it:</strong> the proxy or load balancer in front of the service needs a certificate for the domain, and must
          pass its Host header on.
        </li>
      </ol>
      <p class="hint">
        Once added, the domain shows a TXT record to publish under <code>_shortener.</code> and its host: it serves nothing until the record
        is found (“Check now”, or the service’s periodic check), and it is checked again from then on. “Check DNS and TLS” on its card says
        whether it points here and serves a good certificate, and which records to set if not.
      </p>
    </div>
  );
}
