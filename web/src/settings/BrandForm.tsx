import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { updateWorkspace, type WorkspaceSettings } from '../people/api.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useFormSubmit, type FormErrors } from '../shared/use-form-submit.ts';
import { BrandPreview } from './BrandPreview.tsx';
import { LogoField, logoProblemOf, readAsDataUrl } from './LogoField.tsx';
import { settingsFieldIn, settingsMessage } from './fields.ts';

type Place = 'brand.name' | 'brand.color' | 'brand.logo';
const FIELDS: readonly Place[] = ['brand.name', 'brand.color', 'brand.logo'];
const CONTROLS: Record<Place, string> = { 'brand.name': 'brand-name', 'brand.color': 'brand-color-code', 'brand.logo': 'brand-logo' };
const COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
/** The picker's colour while none is set: the service's own accent. */
const NO_COLOR = '#1d4ed8';

/** A colour code as the picker takes it (#rrggbb), or null. */
function pickerColor(code: string): string | null {
  const color = code.trim().toLowerCase();
  if (!COLOR.test(color)) return null;
  return color.length === 4 ? `#${color.slice(1).replace(/./g, (digit) => digit + digit)}` : color;
}

/** The brand visitors see on the workspace's domains: a name, a colour and a logo, with a preview of a dead link's page. */
export function BrandForm({ settings, onSaved }: { settings: WorkspaceSettings; onSaved: (saved: WorkspaceSettings) => void }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [name, setName] = useState(settings.brand.name ?? '');
  const [color, setColor] = useState(settings.brand.color ?? '');
  const [logo, setLogo] = useState<string | null>(settings.brand.logo);
  const [logoProblem, setLogoProblem] = useState<string | null>(null);

  const { busy, errors, formError, submit, clear } = useFormSubmit<Place>(
    async () => {
      const saved = await updateWorkspace(api, {
        brand: { name: name.trim() === '' ? null : name.trim(), color: color.trim() === '' ? null : color.trim(), logo },
      });
      onSaved(saved);
      announce('Brand saved');
    },
    {
      check: () => {
        const problems: FormErrors<Place> = {};
        if (name.trim().length > 60) problems['brand.name'] = 'Use at most 60 characters.';
        if (color.trim() !== '' && pickerColor(color) === null) problems['brand.color'] = 'Enter a colour code such as #1a6ac8 or #16c.';
        if (logoProblem !== null) problems['brand.logo'] = logoProblem;
        return Object.keys(problems).length > 0 ? problems : null;
      },
      placeOf: (error) => settingsFieldIn(error, FIELDS),
      messageOf: settingsMessage,
      controlOf: (place) => CONTROLS[place],
    },
  );

  const chooseLogo = async (file: File | undefined) => {
    clear('brand.logo');
    if (file === undefined) return;
    const problem = await logoProblemOf(file);
    setLogoProblem(problem);
    if (problem === null) setLogo(await readAsDataUrl(file));
  };

  return (
    <form class="form panel" onSubmit={submit} noValidate aria-labelledby="settings-brand-heading">
      <h2 id="settings-brand-heading">Brand</h2>
      <p class="hint">What visitors see on pages of your domains: a link that expired or no longer exists, a password form.</p>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <div class="brand-grid">
        <div class="brand-fields">
          <Field id="brand-name" label="Brand name (optional)" hint="Empty: the workspace’s name." error={errors['brand.name'] ?? null}>
            {(control) => (
              <input
                {...control}
                type="text"
                name="brandName"
                maxLength={60}
                autoComplete="organization"
                value={name}
                onInput={(event) => {
                  setName(event.currentTarget.value);
                  clear('brand.name');
                }}
              />
            )}
          </Field>
          <Field
            id="brand-color-code"
            label="Colour code (optional)"
            hint="Such as #1a6ac8. Empty: the service’s own."
            error={errors['brand.color'] ?? null}
          >
            {(control) => (
              <div class="color-row">
                <input
                  type="color"
                  id="brand-color"
                  aria-label="Colour picker"
                  value={pickerColor(color) ?? NO_COLOR}
                  onInput={(event) => {
                    setColor(event.currentTarget.value);
                    clear('brand.color');
                  }}
                />
                <input
                  {...control}
                  class="input-short"
                  type="text"
                  name="brandColor"
                  maxLength={7}
                  autoComplete="off"
                  spellcheck={false}
                  value={color}
                  onInput={(event) => {
                    setColor(event.currentTarget.value);
                    clear('brand.color');
                  }}
                />
              </div>
            )}
          </Field>
          <LogoField
            logo={logo}
            error={errors['brand.logo'] ?? logoProblem}
            onChoose={(file) => void chooseLogo(file)}
            onRemove={() => {
              setLogo(null);
              setLogoProblem(null);
              announce('Logo removed: save to keep the change');
            }}
          />
        </div>
        <BrandPreview name={name.trim() === '' ? settings.name : name.trim()} color={pickerColor(color)} logo={logo} />
      </div>
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Saving…' : 'Save brand'}
      </button>
    </form>
  );
}
