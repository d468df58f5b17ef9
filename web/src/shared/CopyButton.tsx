import { useEffect, useRef, useState } from 'preact/hooks';
import { useAnnounce } from './Status.tsx';

interface CopyButtonProps {
  text: string;
  /** What is copied, for the button's accessible name ("Copy short URL https://…"). */
  what: string;
  /** The id of the element showing `text`, selected when the clipboard cannot be written. */
  sourceId: string;
}

/**
 * Copies `text` with the Clipboard API. Where there is none (a plain-HTTP origin other than localhost) or it is
 * refused, the text is selected instead so that the person can copy it with the keyboard.
 */
export function CopyButton({ text, what, sourceId }: CopyButtonProps) {
  const announce = useAnnounce();
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      announce('Copied to the clipboard');
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setCopied(false), 2000);
    } catch {
      selectText(sourceId);
      announce('Could not copy: the text is selected, press Ctrl+C (or ⌘C) to copy it');
    }
  };

  return (
    <button type="button" class="button-small" onClick={() => void copy()}>
      {copied ? 'Copied' : 'Copy'}
      <span class="visually-hidden"> {what}</span>
    </button>
  );
}

function selectText(id: string): void {
  const element = document.getElementById(id);
  if (element === null) return;
  if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
    element.focus();
    element.select();
    return;
  }
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}
