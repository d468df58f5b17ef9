import { useState } from 'preact/hooks';
import { errorMessage } from '../api/errors.ts';

export interface Action<K extends string> {
  /** The action under way, whose button says so (aria-disabled, so that it keeps its focus); null: none. */
  busy: K | null;
  /** The last action's error, for people. */
  error: string | null;
  setError: (error: string | null) => void;
  /** Runs `action` as `key` unless one is under way; what it throws becomes `error`, or goes to `onError`. */
  run: (key: K, action: () => Promise<void>, onError?: (caught: unknown) => void) => void;
}

/** The buttons of a part of a page that call the API (enable, reveal, revoke, delete…): one call at a time, its error shown. */
export function useAction<K extends string>(): Action<K> {
  const [busy, setBusy] = useState<K | null>(null);
  const [error, setError] = useState<string | null>(null);

  const go = async (key: K, action: () => Promise<void>, onError?: (caught: unknown) => void) => {
    setBusy(key);
    setError(null);
    try {
      await action();
    } catch (caught) {
      if (onError === undefined) setError(errorMessage(caught));
      else onError(caught);
    } finally {
      setBusy(null);
    }
  };

  return {
    busy,
    error,
    setError,
    run: (key, action, onError) => {
      if (busy === null) void go(key, action, onError);
    },
  };
}
