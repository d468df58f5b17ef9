import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { listTags, type TagCount } from '../links/api.ts';

/** A choice of the workspace's tags (GET /tags, most used first) that narrows the analytics to the links with one. */
export function TagPicker({ tag, onChange }: { tag: string; onChange: (tag: string) => void }) {
  const { api } = useApp();
  const [tags, setTags] = useState<TagCount[]>([]);
  useEffect(() => {
    const abort = new AbortController();
    // Without the list, the picker still shows the tag of the address and "All links".
    listTags(api, abort.signal).then(setTags, () => {});
    return () => abort.abort();
  }, []);
  // A tag from the address that no link has (any more) still shows as chosen.
  const options = tag !== '' && !tags.some((t) => t.tag === tag) ? [{ tag, links: 0 }, ...tags] : tags;
  return (
    <div class="field tag-picker">
      <label for="analytics-tag">Tag</label>
      <select id="analytics-tag" value={tag} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">All links</option>
        {options.map((t) => (
          <option key={t.tag} value={t.tag}>
            {t.tag} ({t.links})
          </option>
        ))}
      </select>
    </div>
  );
}
