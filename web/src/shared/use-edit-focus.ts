import { useEffect, useRef } from 'preact/hooks';

/**
 * The focus of a card edited in place: into its form's first field when the form opens, back to its Edit button
 * when it closes. Put `card` on the card and `editButton` on the button.
 */
export function useEditFocus<C extends HTMLElement>(editing: boolean) {
  const card = useRef<C>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(editing);
  useEffect(() => {
    if (editing) card.current?.querySelector<HTMLElement>('input')?.focus();
    else if (wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  return { card, editButton };
}
