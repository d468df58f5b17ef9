import type { ComponentChildren } from 'preact';
import { ErrorMessage } from '../shared/Field.tsx';

interface StatsFrameProps<S> {
  stats: S | null;
  error: string | null;
  retry: () => void;
  /** A newer period is being read: the numbers shown are the last period's. */
  loading: boolean;
  /** What is read, for the messages: "clicks", "analytics". */
  what: string;
  children: (stats: S) => ComponentChildren;
}

/** A period's numbers once read: an error with a retry, a loading line, or the numbers (dimmed while the next period loads). */
export function StatsFrame<S>({ stats, error, retry, loading, what, children }: StatsFrameProps<S>) {
  if (error !== null) {
    return (
      <ErrorMessage onRetry={retry}>
        The {what} could not be loaded: {error}
      </ErrorMessage>
    );
  }
  if (stats === null) return <p class="loading">Loading {what}…</p>;
  return (
    <div class={loading ? 'stats stats-loading' : 'stats'} aria-busy={loading}>
      {children(stats)}
    </div>
  );
}
