import { useAnnounce } from './Status.tsx';

interface ShareButtonProps {
  url: string;
  /** A title for the share sheet (the link's title), if any. */
  title?: string | undefined;
  /** What is shared, for the button's accessible name ("Share short URL https://…"). */
  what: string;
}

/** Opens the device's share sheet (`navigator.share`); rendered only where the browser has one (phones, mostly). */
export function ShareButton({ url, title, what }: ShareButtonProps) {
  const announce = useAnnounce();
  if (typeof navigator.share !== 'function') return null;

  const share = async () => {
    try {
      await navigator.share(title === undefined ? { url } : { url, title });
    } catch (error) {
      // Closing the sheet is a choice, not a failure.
      if (!(error instanceof DOMException && error.name === 'AbortError')) announce('Could not open the share sheet');
    }
  };

  return (
    <button type="button" class="button-small" onClick={() => void share()}>
      Share
      <span class="visually-hidden"> {what}</span>
    </button>
  );
}
