import type { ComponentChildren } from 'preact';

interface SectionProps {
  id: string;
  title: string;
  /** What is set in it, shown on the summary line open or closed. */
  summary: string;
  /** Something is set: the summary is marked as such. */
  used: boolean;
  open: boolean;
  onToggle: (open: boolean) => void;
  children: ComponentChildren;
}

/** One named part of a link's options: a disclosure with its marker and a line saying what is set in it. */
export function Section({ id, title, summary, used, open, onToggle, children }: SectionProps) {
  return (
    <details class="builder-section" id={id} open={open} onToggle={(event) => onToggle(event.currentTarget.open)}>
      <summary>
        <span class="builder-section-title">{title}</span>
        <span class="visually-hidden">: </span>
        <span class={used ? 'builder-section-summary builder-section-used' : 'builder-section-summary'}>{summary}</span>
      </summary>
      <div class="builder-section-body">{children}</div>
    </details>
  );
}
