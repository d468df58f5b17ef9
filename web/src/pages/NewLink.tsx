import { useLocation } from 'preact-iso';
import { LinkForm, type LinkFormValues } from '../components/LinkForm.tsx';
import { Page } from '../components/Page.tsx';
import { useAnnounce } from '../components/Status.tsx';
import { permissions, useApp } from '../context.ts';
import { fromDateTimeLocal, parseTags } from '../format.ts';
import type { NewLink } from '../api.ts';

const EMPTY: LinkFormValues = { url: '', alias: '', expiresAt: '', title: '', tags: '' };

export function NewLinkPage() {
  const { api, session } = useApp();
  const { route } = useLocation();
  const announce = useAnnounce();

  if (!permissions(session).canCreate) {
    return (
      <Page title="New link">
        <p class="message message-info">Your key has the viewer role: it can read links but not create them.</p>
      </Page>
    );
  }

  const create = async (values: LinkFormValues) => {
    const link: NewLink = { url: values.url.trim() };
    if (values.alias.trim() !== '') link.alias = values.alias.trim();
    const expiresAt = fromDateTimeLocal(values.expiresAt);
    if (expiresAt !== null) link.expiresAt = expiresAt;
    if (values.title.trim() !== '') link.title = values.title;
    const tags = parseTags(values.tags);
    if (tags.length > 0) link.tags = tags;
    const created = await api.createLink(link);
    announce(`Link created: ${created.shortUrl}`);
    route(`/app/links/${encodeURIComponent(created.code)}`);
  };

  return (
    <Page title="New link">
      <div class="narrow">
        <LinkForm mode="create" initial={EMPTY} submitLabel="Create link" busyLabel="Creating…" onSubmit={create} />
      </div>
    </Page>
  );
}
