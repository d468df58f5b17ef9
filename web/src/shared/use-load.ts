import { useEffect, useState } from 'preact/hooks';
import { errorMessage, isAbort } from '../api/errors.ts';

export interface Loaded<T> {
  /** The last answer, kept on screen while the next one loads; null until the first. */
  data: T | null;
  error: string | null;
  retry: () => void;
}

/**
 * One API read, made again whenever `key` (the request, as a string) changes; the read it replaces is aborted, so
 * a slow answer for an old request never overwrites a newer one.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key: string): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setError(null);
    load(abort.signal).then(setData, (caught: unknown) => {
      if (!isAbort(caught)) setError(errorMessage(caught));
    });
    return () => abort.abort();
  }, [key, attempt]);

  return { data, error, retry: () => setAttempt((n) => n + 1) };
}
