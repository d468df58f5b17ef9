// A link as the create and edit forms hold it: text as typed, turned into the API's shape when sent.
import type { OptionsDraft } from '../options/draft.ts';

export interface LinkFormValues {
  url: string;
  /** The host of the link's domain; '' for the default domain. */
  domain: string;
  alias: string;
  /** `<input type=datetime-local>` values: local wall time, '' for none. */
  startsAt: string;
  expiresAt: string;
  title: string;
  /** Comma-separated. */
  tags: string;
  options: OptionsDraft;
}
