import { CopyButton } from './CopyButton.tsx';

/** A secret in a box of its own, with a button that copies it. */
export function SecretValue({ id, secret, what }: { id: string; secret: string; what: string }) {
  return (
    <div class="secret-value">
      <code id={id}>{secret}</code>
      <CopyButton text={secret} what={what} sourceId={id} />
    </div>
  );
}
