import { useLayoutEffect, useRef } from 'preact/hooks';
import { CopyButton } from '../shared/CopyButton.tsx';
import type { CreatedKey } from './api.ts';

/** The new key's secret, shown this once: the service keeps only its hash. */
export function NewSecret({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const box = useRef<HTMLElement>(null);
  useLayoutEffect(() => box.current?.focus(), [created.id]);
  return (
    <section class="panel secret" aria-labelledby="secret-heading" ref={box} tabIndex={-1}>
      <h2 id="secret-heading">Key “{created.name}” created</h2>
      <p>
        <strong>Copy this key now: you won’t see it again.</strong> Only a hash of it is stored, so it cannot be shown later.
      </p>
      <div class="secret-value">
        <code id="new-key-secret">{created.key}</code>
        <CopyButton text={created.key} what="the new key" sourceId="new-key-secret" />
      </div>
      <button type="button" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}
