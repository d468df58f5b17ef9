import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { permissions, useApp } from '../auth/context.ts';
import { useDomains } from '../domains/use-domains.ts';
import { fromDateTimeLocal, parseTags } from '../shared/format.ts';
import { Page } from '../shared/Page.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useLoad } from '../shared/use-load.ts';
import { createLink, getLink, type CreatedLink, type Link, type NewLink } from './api.ts';
import { CreatedPanel } from './builder/CreatedPanel.tsx';
import { PreviewPanel } from './builder/PreviewPanel.tsx';
import { LinkForm, type LinkFormValues } from './LinkForm.tsx';
import { draftOf, NO_OPTIONS, optionsOf } from './options/draft.ts';

const EMPTY: LinkFormValues = { url: '', domain: '', alias: '', startsAt: '', expiresAt: '', title: '', tags: '', options: NO_OPTIONS };

/** A link's fields as a new link's (`?duplicate=CODE`): all but its code, expiry and password (a new link has none). */
function duplicateOf(link: Link, defaultHost: string | undefined): LinkFormValues {
  return {
    ...EMPTY,
    url: link.url,
    domain: link.domain === defaultHost ? '' : link.domain,
    title: link.title ?? '',
    tags: link.tags.join(', '),
    options: { ...draftOf(link.options), hasPassword: false },
  };
}

/** The body of POST /links for the form's values; `startsAt` only when one is set (see the lead's note in the report). */
function newLinkOf(values: LinkFormValues): NewLink & { startsAt?: string } {
  const link: NewLink & { startsAt?: string } = { url: values.url.trim() };
  if (values.domain !== '') link.domain = values.domain;
  if (values.alias.trim() !== '') link.alias = values.alias.trim();
  const startsAt = fromDateTimeLocal(values.startsAt);
  if (startsAt !== null) link.startsAt = startsAt;
  const expiresAt = fromDateTimeLocal(values.expiresAt);
  if (expiresAt !== null) link.expiresAt = expiresAt;
  if (values.title.trim() !== '') link.title = values.title;
  const tags = parseTags(values.tags);
  if (tags.length > 0) link.tags = tags;
  const options = optionsOf(values.options);
  if (options !== null) link.options = options;
  return link;
}

export function NewLinkPage() {
  const { api, session } = useApp();
  const { query } = useLocation();
  const announce = useAnnounce();
  const { domains, defaultHost, error: domainsError } = useDomains();
  const duplicate = query['duplicate'] ?? '';
  const duplicateDomain = query['domain'] || null;
  const source = useLoad<Link | null>(
    (signal) => (duplicate === '' ? Promise.resolve(null) : getLink(api, { code: duplicate, domain: duplicateDomain }, signal)),
    `${duplicate} ${duplicateDomain ?? ''}`,
  );
  const [created, setCreated] = useState<{ link: CreatedLink; domain: string | null } | null>(null);
  // Each fresh form is a new one: "Create another" starts from nothing, its URL field focused.
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (round > 0) document.getElementById('link-create-url')?.focus();
  }, [round]);

  if (!permissions(session).canCreate) {
    return (
      <Page title="New link">
        <p class="message message-info">Your key has the viewer role: it can read links but not create them.</p>
      </Page>
    );
  }

  const create = async (values: LinkFormValues) => {
    const link = newLinkOf(values);
    const made = await createLink(api, link);
    announce(`Link created: ${made.shortUrl}`);
    setCreated({ link: made, domain: link.domain ?? null });
  };

  const ready = (domains !== null || domainsError !== null) && (duplicate === '' || source.data !== null || source.error !== null);
  const initial = round === 0 && source.data !== null ? duplicateOf(source.data, defaultHost) : EMPTY;

  return (
    <Page title={duplicate === '' || round > 0 ? 'New link' : `New link like ${duplicate}`}>
      {domainsError !== null && (
        <p class="message message-info">
          The workspace’s short domains could not be read ({domainsError}): links are made on the default domain.
        </p>
      )}
      {duplicate !== '' && round === 0 && source.error !== null && (
        <p class="message message-info">
          The link “{duplicate}” could not be read ({source.error}): the form starts empty.
        </p>
      )}
      {duplicate !== '' && round === 0 && source.data !== null && created === null && (
        <p class="message message-info">
          A copy of {source.data.shortUrl}: its target, title, tags and options. Choose a new alias or leave it for a random code
          {source.data.options?.password === true ? '; the password is not copied, set one again under Protection' : ''}.
        </p>
      )}
      {created !== null ? (
        <div class="narrow">
          <CreatedPanel
            link={created.link}
            domain={created.domain}
            onAnother={() => {
              setCreated(null);
              setRound(round + 1);
            }}
          />
        </div>
      ) : ready ? (
        <LinkForm
          key={round}
          mode="create"
          initial={initial}
          domains={domains ?? []}
          defaultHost={defaultHost}
          submitLabel="Create link"
          busyLabel="Creating…"
          onSubmit={create}
          aside={(preview) => <PreviewPanel values={preview.values} host={preview.host} shortUrl={preview.shortUrl} />}
        />
      ) : (
        <p class="loading">Loading…</p>
      )}
    </Page>
  );
}
