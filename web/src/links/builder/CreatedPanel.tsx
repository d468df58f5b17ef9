import { useLayoutEffect, useRef } from 'preact/hooks';
import { CopyButton } from '../../shared/CopyButton.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import type { CreatedLink } from '../api.ts';
import { linkHref } from '../link-key.ts';

interface CreatedPanelProps {
  link: CreatedLink;
  /** Its domain as the link's page names it: null for the default domain. */
  domain: string | null;
  onAnother: () => void;
}

/** The link just made: its short URL to copy or share, its page, and a fresh form. Takes the focus when it appears. */
export function CreatedPanel({ link, domain, onAnother }: CreatedPanelProps) {
  const announce = useAnnounce();
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), []);
  const canShare = typeof navigator.share === 'function';

  const share = async () => {
    try {
      await navigator.share({ title: link.title ?? 'Short link', url: link.shortUrl });
    } catch (error) {
      // Closing the share sheet is not a failure.
      if (!(error instanceof DOMException && error.name === 'AbortError')) announce('The link could not be shared: copy it instead');
    }
  };

  return (
    <section class="panel created" aria-labelledby="created-heading">
      <h2 id="created-heading" tabIndex={-1} ref={heading}>
        Link created
      </h2>
      <p class="created-url">
        <a id="created-short-url" href={link.shortUrl}>
          {link.shortUrl}
        </a>
      </p>
      <p class="hint">Opens {link.url}</p>
      <div class="button-row">
        <CopyButton text={link.shortUrl} what="short link" sourceId="created-short-url" />
        {canShare && (
          <button type="button" class="button-small" onClick={() => void share()}>
            Share
          </button>
        )}
        <a class="button button-small" href={linkHref({ code: link.code, domain })}>
          Open the link’s page
        </a>
        <button type="button" class="button-small button-primary" onClick={onAnother}>
          Create another
        </button>
      </div>
    </section>
  );
}
