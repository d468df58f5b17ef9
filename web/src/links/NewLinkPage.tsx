import { useLocation } from 'preact-iso';
import { permissions, useApp } from '../auth/context.ts';
import { useDomains } from '../domains/use-domains.ts';
import { fromDateTimeLocal, parseTags } from '../shared/format.ts';
import { Page } from '../shared/Page.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { createLink, type NewLink } from './api.ts';
import { linkHref } from './link-key.ts';
import { LinkForm, type LinkFormValues } from './LinkForm.tsx';
import { NO_OPTIONS, optionsOf } from './options/draft.ts';

const EMPTY: LinkFormValues = { url: '', domain: '', alias: '', expiresAt: '', title: '', tags: '', options: NO_OPTIONS };

export function NewLinkPage() {
  const { api, session } = useApp();
  const { route } = useLocation();
  const announce = useAnnounce();
  const { domains, error: domainsError } = useDomains();

  if (!permissions(session).canCreate) {
    return (
      <Page title="New link">
        <p class="message message-info">Your key has the viewer role: it can read links but not create them.</p>
      </Page>
    );
  }

  const create = async (values: LinkFormValues) => {
    const link: NewLink = { url: values.url.trim() };
    if (values.domain !== '') link.domain = values.domain;
    if (values.alias.trim() !== '') link.alias = values.alias.trim();
    const expiresAt = fromDateTimeLocal(values.expiresAt);
    if (expiresAt !== null) link.expiresAt = expiresAt;
    if (values.title.trim() !== '') link.title = values.title;
    const tags = parseTags(values.tags);
    if (tags.length > 0) link.tags = tags;
    const options = optionsOf(values.options);
    if (options !== null) link.options = options;
    const created = await createLink(api, link);
    announce(`Link created: ${created.shortUrl}`);
    route(linkHref({ code: created.code, domain: link.domain ?? null }));
  };

  return (
    <Page title="New link">
      <div class="narrow">
        {domainsError !== null && (
          <p class="message message-info">
            The workspace’s short domains could not be read ({domainsError}): links are made on the default domain.
          </p>
        )}
        {/* Mounted once the domains are known, so that the form starts with its domain choice or without it. */}
        {domains !== null || domainsError !== null ? (
          <LinkForm
            mode="create"
            initial={EMPTY}
            domains={domains ?? []}
            submitLabel="Create link"
            busyLabel="Creating…"
            onSubmit={create}
          />
        ) : (
          <p class="loading">Loading…</p>
        )}
      </div>
    </Page>
  );
}
