import { createContext } from 'preact';
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';

const AnnounceContext = createContext<(message: string) => void>(() => {});

export function useAnnounce(): (message: string) => void {
  return useContext(AnnounceContext);
}

/** A message announced this recently survives a change of page ("Link created", then the link's page). */
const CARRIED_MS = 1000;

/**
 * A polite live region, present from the start so screen readers watch it, that shows and says short status
 * messages ("Copied", "Link created") and clears itself after a few seconds, or when another page is opened.
 */
export function StatusProvider({ children }: { children: ComponentChildren }) {
  const [message, setMessage] = useState('');
  const timer = useRef<number | undefined>(undefined);
  const announcedAt = useRef(0);
  const { path } = useLocation();
  useEffect(() => () => window.clearTimeout(timer.current), []);
  useEffect(() => {
    if (performance.now() - announcedAt.current > CARRIED_MS) setMessage('');
  }, [path]);

  const announce = useCallback((text: string) => {
    window.clearTimeout(timer.current);
    announcedAt.current = performance.now();
    // Cleared first so that the same message twice is said twice.
    setMessage('');
    window.setTimeout(() => setMessage(text), 50);
    timer.current = window.setTimeout(() => setMessage(''), 6000);
  }, []);

  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div class={message === '' ? 'toast toast-empty' : 'toast'} role="status" aria-live="polite">
        {message}
      </div>
    </AnnounceContext.Provider>
  );
}
