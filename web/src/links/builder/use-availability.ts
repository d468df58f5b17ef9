import { useEffect, useState } from 'preact/hooks';
import { isAbort } from '../../api/errors.ts';
import { useApp } from '../../auth/context.ts';
import { aliasAvailability, type Availability } from './alias-api.ts';
import { ALIAS_SHAPE } from './limits.ts';

/** Typing pauses this long before an alias is asked about: one request per word, not per key. */
const DEBOUNCE_MS = 400;

export type AliasState =
  | { status: 'none' }
  | { status: 'checking' }
  | { status: 'done'; answer: Availability }
  /** The question could not be asked (offline, rate-limited): the create will say. */
  | { status: 'unknown' };

/** Whether `alias` is free on `domain`, asked once typing pauses; a newer alias aborts the older question. */
export function useAliasAvailability(alias: string, domain: string): AliasState {
  const { api } = useApp();
  const [state, setState] = useState<AliasState>({ status: 'none' });
  useEffect(() => {
    const typed = alias.trim();
    // The shape is checked here already (checks.ts): only a possible alias is worth a request.
    if (typed === '' || !ALIAS_SHAPE.test(typed)) {
      setState({ status: 'none' });
      return () => {};
    }
    setState({ status: 'checking' });
    const abort = new AbortController();
    const timer = window.setTimeout(() => {
      aliasAvailability(api, typed, domain, abort.signal).then(
        (answer) => setState({ status: 'done', answer }),
        (error: unknown) => {
          if (!isAbort(error)) setState({ status: 'unknown' });
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      window.clearTimeout(timer);
      abort.abort();
    };
  }, [api, alias, domain]);
  return state;
}
