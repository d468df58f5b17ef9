import { useState } from 'preact/hooks';
import type { QrLevel } from '../../../src/links/qr-image.ts';
import { Field } from '../shared/Field.tsx';
import { listOf } from '../shared/lists.ts';
import { qrUrl, type Link } from './api.ts';
import type { LinkKey } from './link-key.ts';

/** The error correction levels, the least first: how much of the code may be lost (or covered) and still scan. */
const LEVELS = listOf<QrLevel>()(['L', 'M', 'Q', 'H']);

const LEVEL_LABELS: Readonly<Record<QrLevel, string>> = {
  L: 'L: 7 % may be lost',
  M: 'M: 15 % (print)',
  Q: 'Q: 25 %',
  H: 'H: 30 % (logo over it)',
};

interface QrOptions {
  size: number;
  margin: number;
  level: QrLevel;
}

/** A preview of the link's QR code (GET /links/:code/qr) with its options, and the files to download. */
export function QrPanel({ link, linkKey }: { link: Link; linkKey: LinkKey }) {
  const [options, setOptions] = useState<QrOptions>({ size: 256, margin: 4, level: 'M' });
  const [failed, setFailed] = useState(false);
  const svg = qrUrl(linkKey, { format: 'svg', ...options });
  const png = qrUrl(linkKey, { format: 'png', ...options });
  // The preview is shown at 256 px whatever the size chosen: only the margin and the level change it.
  const preview = qrUrl(linkKey, { format: 'svg', ...options, size: 256 });

  const set = (change: Partial<QrOptions>) => {
    setFailed(false);
    setOptions({ ...options, ...change });
  };

  return (
    <section class="panel" aria-labelledby="qr-heading">
      <h2 id="qr-heading">QR code</h2>
      {link.state !== 'active' ? (
        <p class="message message-info">The QR code is available while the link redirects; this link is {link.state}.</p>
      ) : (
        <div class="qr">
          <div class="qr-preview">
            {failed ? (
              <p class="message message-error">The QR code could not be loaded.</p>
            ) : (
              <img src={preview} alt={`QR code for ${link.shortUrl}`} width={256} height={256} onError={() => setFailed(true)} />
            )}
          </div>
          <div class="qr-controls">
            <NumberField
              id="qr-size"
              label="Size in pixels"
              hint="64 to 2048."
              min={64}
              max={2048}
              step={16}
              value={options.size}
              onChange={(size) => set({ size })}
            />
            <NumberField
              id="qr-margin"
              label="Margin in modules"
              hint="0 to 16; 4 is the quiet zone scanners expect."
              min={0}
              max={16}
              value={options.margin}
              onChange={(margin) => set({ margin })}
            />
            <div class="field">
              <label for="qr-level">Error correction</label>
              <select id="qr-level" value={options.level} onChange={(event) => set({ level: event.currentTarget.value as QrLevel })}>
                {LEVELS.map((level) => (
                  <option key={level} value={level}>
                    {LEVEL_LABELS[level]}
                  </option>
                ))}
              </select>
            </div>
            <p class="button-row">
              <a class="button" href={svg} download={`${link.code}.svg`}>
                Download SVG
              </a>
              <a class="button" href={png} download={`${link.code}.png`}>
                Download PNG
              </a>
            </p>
          </div>
        </div>
      )}
    </section>
  );
}

interface NumberFieldProps {
  id: string;
  label: string;
  hint: string;
  min: number;
  max: number;
  step?: number;
  value: number;
  /** Called with a whole number from `min` to `max` only; anything else typed is left in the field with an error on it. */
  onChange: (value: number) => void;
}

function NumberField({ id, label, hint, min, max, step, value, onChange }: NumberFieldProps) {
  const [error, setError] = useState<string | null>(null);
  // What is typed stays in the field, right or wrong: the number used is `value`.
  const [text, setText] = useState(String(value));
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      {(control) => (
        <input
          {...control}
          type="number"
          inputMode="numeric"
          min={min}
          max={max}
          step={step}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          onChange={(event) => {
            const typed = Number(event.currentTarget.value);
            const ok = event.currentTarget.value.trim() !== '' && Number.isInteger(typed) && typed >= min && typed <= max;
            setError(ok ? null : `Enter a whole number from ${min} to ${max}; the QR code keeps ${value} until then.`);
            if (ok) onChange(typed);
          }}
        />
      )}
    </Field>
  );
}
