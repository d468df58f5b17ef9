import { monogramOf } from './monogram.ts';

/** The target's monogram (see monogram.ts): decoration, as the row names the target in words. */
export function Monogram({ url }: { url: string }) {
  const { letters, colour } = monogramOf(url);
  return (
    <span class={`monogram monogram-${colour}`} aria-hidden="true">
      {letters}
    </span>
  );
}
