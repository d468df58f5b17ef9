import { BRAND_LOGO_MAX_BYTES, imageTypeOf } from '../../../src/people/brand.ts';
import { Field } from '../shared/Field.tsx';

/** As the API takes them (src/people/brand.ts imageTypeOf), which checks them again. */
const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/** Why `file` is not a logo the API takes, or null: by its first bytes and size, with the API's own rules (which it applies again). */
export async function logoProblemOf(file: File): Promise<string | null> {
  const head = new Uint8Array(await file.slice(0, 12).arrayBuffer());
  if (imageTypeOf(head) === undefined) return 'Choose a PNG, JPEG or WebP image (SVG is not taken: it can carry script).';
  if (file.size > BRAND_LOGO_MAX_BYTES) return `This image is ${Math.ceil(file.size / 1024)} KB: choose one of at most 32 KB.`;
  return null;
}

export function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.addEventListener('load', () =>
      typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('The file could not be read.')),
    );
    reader.addEventListener('error', () => reject(reader.error ?? new Error('The file could not be read.')));
    reader.readAsDataURL(file);
  });
}

interface LogoFieldProps {
  /** The logo as a data: URL, or null for none. */
  logo: string | null;
  error: string | null;
  /** A file was chosen, or the choice emptied (undefined). */
  onChoose: (file: File | undefined) => void;
  onRemove: () => void;
}

/** The brand's logo: a file to choose, and the one chosen or saved with a button that removes it. */
export function LogoField({ logo, error, onChoose, onRemove }: LogoFieldProps) {
  return (
    <>
      <Field
        id="brand-logo"
        label="Logo (optional)"
        hint="A PNG, JPEG or WebP image of at most 32 KB; shown about 40 pixels high."
        error={error}
      >
        {(control) => (
          <input
            {...control}
            type="file"
            name="brandLogo"
            accept={LOGO_TYPES.join(',')}
            onChange={(event) => onChoose(event.currentTarget.files?.[0])}
          />
        )}
      </Field>
      {logo !== null && (
        <div class="logo-current">
          <img src={logo} alt="The logo" class="logo-thumb" />
          <button type="button" onClick={onRemove}>
            Remove logo
          </button>
        </div>
      )}
    </>
  );
}
