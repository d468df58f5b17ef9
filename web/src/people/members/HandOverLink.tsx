import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { DateText } from '../../shared/DateText.tsx';
import { SecretValue } from '../../shared/SecretValue.tsx';

interface HandOverLinkProps {
  id: string;
  title: string;
  /** What the link does, and for whom. */
  children: ComponentChildren;
  url: string;
  expiresAt: string;
  onDone: () => void;
}

/**
 * A link the service did not email (it has no SMTP): an invitation or a password reset, to copy and pass on. Its
 * token is a secret: the service keeps only its hash, so this is the one time it is shown.
 */
export function HandOverLink({ id, title, children, url, expiresAt, onDone }: HandOverLinkProps) {
  const box = useRef<HTMLElement>(null);
  useLayoutEffect(() => box.current?.focus(), [url]);
  return (
    <section class="panel secret" aria-labelledby={`${id}-heading`} ref={box} tabIndex={-1}>
      <h2 id={`${id}-heading`}>{title}</h2>
      {children}
      <p>
        <strong>It was not emailed: copy it now and pass it on yourself.</strong> It works once, until <DateText iso={expiresAt} />, and
        cannot be shown again.
      </p>
      <SecretValue id={`${id}-url`} secret={url} what={title} />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
