import type { TagCount } from '../api.ts';

interface TagSuggestionsProps {
  /** The tags field as typed: comma-separated, the last part perhaps half typed. */
  typed: string;
  known: readonly TagCount[];
  /** The field's new text, with the tag added; the field takes the focus back. */
  onPick: (text: string) => void;
}

const SHOWN = 6;

/** The workspace's tags (GET /tags, most used first) that match what is being typed, as buttons that add one. */
export function TagSuggestions({ typed, known, onPick }: TagSuggestionsProps) {
  const parts = typed.split(',');
  const fragment = (parts.at(-1) ?? '').trim().toLowerCase();
  const present = new Set(parts.slice(0, -1).map((part) => part.trim().toLowerCase()));
  const shown = known
    .filter(({ tag }) => {
      const folded = tag.toLowerCase();
      return !present.has(folded) && folded !== fragment && folded.includes(fragment);
    })
    .slice(0, SHOWN);
  if (shown.length === 0) return null;
  const pick = (tag: string) => {
    const kept = parts
      .slice(0, -1)
      .map((part) => part.trim())
      .filter((part) => part !== '');
    onPick(`${[...kept, tag].join(', ')}, `);
  };
  return (
    <div class="tag-suggestions">
      <span class="hint" id="tag-suggestions-label">
        {fragment === '' ? 'Used before:' : 'Matching tags:'}
      </span>
      <ul aria-labelledby="tag-suggestions-label">
        {shown.map(({ tag }) => (
          <li key={tag}>
            <button type="button" class="button-small tag-suggestion" onClick={() => pick(tag)}>
              <span class="visually-hidden">Add tag </span>
              {tag}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
