import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

interface PageProps {
  /** The page's title, also its heading unless `heading` is given. */
  title: string;
  heading?: ComponentChildren;
  /** Controls shown beside the heading (a page's main action). */
  actions?: ComponentChildren;
  children?: ComponentChildren;
}

/** One page: its document title and its heading, which gets focus after each navigation (see App). */
export function Page({ title, heading, actions, children }: PageProps) {
  useEffect(() => {
    document.title = `${title} · Shortener`;
  }, [title]);
  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>{heading ?? title}</h1>
        {actions !== undefined && <div class="page-actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}
