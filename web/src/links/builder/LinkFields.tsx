// Two of a new link's own fields with what they read as they are typed: the alias with the short link it makes and
// whether it is free, the tags with the workspace's tags that match.

import { useApp } from '../../auth/context.ts';
import { Field } from '../../shared/Field.tsx';
import { useLoad } from '../../shared/use-load.ts';
import { listTags } from '../api.ts';
import { ShortLinkPreview } from './ShortLinkPreview.tsx';
import { TagSuggestions } from './TagSuggestions.tsx';
import { useAliasAvailability } from './use-availability.ts';

interface AliasFieldProps {
  prefix: string;
  value: string;
  /** The domain chosen ('' for the default), whose aliases the availability is of. */
  domain: string;
  /** The short link's host, for its preview. */
  host: string;
  error: string | undefined;
  onChange: (alias: string) => void;
}

/** The custom alias, the short link it makes, and whether it is free on the domain (GET /links/alias-availability). */
export function AliasField({ prefix, value, domain, host, error, onChange }: AliasFieldProps) {
  const availability = useAliasAvailability(value, domain);
  return (
    <>
      <Field
        id={`${prefix}-alias`}
        label="Custom alias (optional)"
        hint="3–64 letters, digits, - or _. Leave empty for a random code."
        error={error}
      >
        {(control) => (
          <input
            {...control}
            aria-describedby={[control['aria-describedby'], `${prefix}-short-preview`].filter(Boolean).join(' ')}
            type="text"
            name="alias"
            autoComplete="off"
            autoCapitalize="off"
            spellcheck={false}
            value={value}
            onInput={(event) => onChange(event.currentTarget.value)}
          />
        )}
      </Field>
      <ShortLinkPreview id={`${prefix}-short-preview`} host={host} alias={value} availability={availability} />
    </>
  );
}

interface TagsFieldProps {
  prefix: string;
  value: string;
  error: string | undefined;
  onChange: (tags: string) => void;
  /** A suggested tag was added: the field takes the focus back. */
  onPicked: () => void;
}

/** The tags, comma-separated, with the workspace's tags (GET /tags) that match what is typed offered as buttons. */
export function TagsField({ prefix, value, error, onChange, onPicked }: TagsFieldProps) {
  const { api } = useApp();
  const { data: known } = useLoad((signal) => listTags(api, signal), 'tags');
  return (
    <>
      <Field id={`${prefix}-tags`} label="Tags (optional)" hint="Separated by commas, up to 10, e.g. spring, newsletter." error={error}>
        {(control) => (
          <input
            {...control}
            type="text"
            name="tags"
            autoComplete="off"
            value={value}
            onInput={(event) => onChange(event.currentTarget.value)}
          />
        )}
      </Field>
      <TagSuggestions
        typed={value}
        known={known ?? []}
        onPick={(tags) => {
          onChange(tags);
          onPicked();
        }}
      />
    </>
  );
}
