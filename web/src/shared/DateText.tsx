import { formatDate, formatDateTime } from './format.ts';

/** A date in a table: the day, with the time of day in its tooltip. */
export function DateText({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatDate(iso)}
    </time>
  );
}
