import { OptionText } from './OptionText.tsx';
import type { OptionProps } from './props.ts';

/** The social preview: what link-preview crawlers are shown instead of the redirect. */
export function PreviewFields({ id, draft, errors, onChange }: OptionProps<'previewTitle' | 'previewDescription' | 'previewImage'>) {
  return (
    <>
      <p class="hint">What chat apps and social networks show for the short link: their crawlers get these, people the redirect.</p>
      <OptionText
        id={id('preview-title')}
        label="Preview title"
        value={draft.previewTitle}
        errors={errors}
        onInput={(previewTitle) => onChange({ previewTitle })}
      />
      <OptionText
        id={id('preview-description')}
        label="Preview description"
        value={draft.previewDescription}
        errors={errors}
        onInput={(previewDescription) => onChange({ previewDescription })}
      />
      <OptionText
        id={id('preview-image')}
        type="url"
        label="Preview image URL"
        value={draft.previewImage}
        errors={errors}
        onInput={(previewImage) => onChange({ previewImage })}
      />
    </>
  );
}
