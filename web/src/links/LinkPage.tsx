import { useRoute } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { ClicksPanel } from '../analytics/ClicksPanel.tsx';
import { targetWords } from './rule-words.ts';
import { errorMessage, isAbort } from '../api/errors.ts';
import { ApiError } from '../api/errors.ts';
import { permissions, useApp } from '../auth/context.ts';
import { ErrorMessage } from '../shared/Field.tsx';
import { Page } from '../shared/Page.tsx';
import { getLink, type Link } from './api.ts';
import { EditLinkPanel } from './EditLinkPanel.tsx';
import { HealthPanel } from './HealthPanel.tsx';
import type { LinkKey } from './link-key.ts';
import { LinkActions } from './LinkActions.tsx';
import { LinkDetails } from './LinkDetails.tsx';
import { QrPanel } from './QrPanel.tsx';

type LoadState = { status: 'loading' } | { status: 'ready'; link: Link } | { status: 'error'; error: ApiError | null; message: string };

/**
 * One link: what it is, its QR code, its clicks, and (for who may change it) edit, disable and delete. The address
 * names the link's domain (`?domain=<host>`) unless it is the default one; every request for the link passes it on.
 */
export function LinkPage() {
  const { params, query } = useRoute();
  const code = params['code'] ?? '';
  const domain = query['domain'] || null;
  const { api, session } = useApp();
  const [state, setState] = useState<LoadState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const linkKey: LinkKey = { code, domain };

  useEffect(() => {
    const abort = new AbortController();
    setState({ status: 'loading' });
    getLink(api, linkKey, abort.signal).then(
      (link) => setState({ status: 'ready', link }),
      (error: unknown) => {
        if (!isAbort(error)) setState({ status: 'error', error: error instanceof ApiError ? error : null, message: errorMessage(error) });
      },
    );
    return () => abort.abort();
  }, [api, code, domain, attempt]);

  if (state.status === 'loading') {
    return (
      <Page title={`Link ${code}`}>
        <p class="loading">Loading the link…</p>
      </Page>
    );
  }
  if (state.status === 'error') {
    const notFound = state.error?.code === 'LINK_NOT_FOUND';
    return (
      <Page title={notFound ? 'Link not found' : `Link ${code}`}>
        {notFound ? (
          <p>
            There is no link with the code “{code}” {domain === null ? 'on the default domain' : `on ${domain}`} in this workspace. It may
            have been deleted, or its domain removed with its links moved to another.
          </p>
        ) : (
          <ErrorMessage onRetry={() => setAttempt(attempt + 1)}>The link could not be loaded: {state.message}</ErrorMessage>
        )}
        <p>
          <a href="/app/links">Back to the links</a>
        </p>
      </Page>
    );
  }

  const { link } = state;
  const canManage = permissions(session).canManage(link.creator);
  const setLink = (updated: Link) => setState({ status: 'ready', link: updated });

  return (
    <Page
      title={`Link ${link.code}`}
      heading={
        <>
          <span class="heading-prefix">Link </span>
          <span class="break">{link.title ?? link.code}</span>
        </>
      }
    >
      <p class="breadcrumb">
        <a href="/app/links">← All links</a>
      </p>
      <div class="link-layout">
        <div class="link-main">
          <LinkDetails link={link} />
          {canManage && <EditLinkPanel link={link} linkKey={linkKey} onChange={setLink} />}
          <ClicksPanel linkKey={linkKey} targetText={(value) => targetWords(value, link)} />
        </div>
        <div class="link-side">
          <QrPanel link={link} linkKey={linkKey} />
          <HealthPanel linkKey={linkKey} canManage={canManage} />
          {canManage ? (
            <LinkActions link={link} linkKey={linkKey} onChange={setLink} />
          ) : (
            <p class="hint">
              {session.key.role === 'viewer'
                ? 'Your key has the viewer role: it can read this link but not change it.'
                : 'Only the key that created this link, or an admin, can change it.'}
            </p>
          )}
        </div>
      </div>
    </Page>
  );
}
