import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface MenuItem {
  label: string;
  /** A page to go to (a link), or what to do (a button). */
  href?: string;
  onSelect?: () => void;
  danger?: boolean;
}

interface RowMenuProps {
  /** The button's accessible name ("Actions for Spring sale"). */
  label: string;
  items: readonly MenuItem[];
}

/**
 * A menu button (WAI-ARIA APG "menu button"): Enter, Space or ↓ open it on its first item, ↑ on its last; ↑ ↓ Home End
 * move; Escape closes it and focus returns to the button, as it does after an item is chosen (so that a dialog the
 * item opens gives focus back there); Tab or a click elsewhere closes it.
 */
export function RowMenu({ label, items }: RowMenuProps) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  /** Which item gets focus as the menu opens. */
  const start = useRef<'first' | 'last'>('first');

  const entries = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];

  // Before the browser paints: a key pressed right after opening lands on the item, not on the button.
  useLayoutEffect(() => {
    if (!open) return undefined;
    const all = entries();
    (start.current === 'last' ? all.at(-1) : all[0])?.focus();
    const away = (event: PointerEvent) => {
      const target = event.target as Node | null;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open]);

  const show = (at: 'first' | 'last') => {
    start.current = at;
    setOpen(true);
  };
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  const onMenuKey = (event: KeyboardEvent) => {
    const all = entries();
    const at = all.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => {
      event.preventDefault();
      all[(to + all.length) % all.length]?.focus();
    };
    if (event.key === 'ArrowDown') move(at + 1);
    else if (event.key === 'ArrowUp') move(at - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(all.length - 1);
    else if (event.key === 'Escape') {
      event.preventDefault();
      close();
    } else if (event.key === 'Tab') setOpen(false);
  };

  const choose = (item: MenuItem) => {
    close();
    item.onSelect?.();
  };

  return (
    <div class="row-menu">
      <button
        type="button"
        ref={button}
        class="button-small menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => (open ? setOpen(false) : show('first'))}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            show(event.key === 'ArrowUp' ? 'last' : 'first');
          }
        }}
      >
        <span aria-hidden="true">⋯</span>
        <span class="visually-hidden">{label}</span>
      </button>
      {open && (
        <div class="menu" role="menu" aria-label={label} ref={menu} onKeyDown={onMenuKey}>
          {items.map((item) =>
            item.href !== undefined ? (
              <a key={item.label} role="menuitem" tabIndex={-1} href={item.href} onClick={() => setOpen(false)}>
                {item.label}
              </a>
            ) : (
              <button
                key={item.label}
                type="button"
                role="menuitem"
                tabIndex={-1}
                class={item.danger === true ? 'menu-danger' : undefined}
                onClick={() => choose(item)}
              >
                {item.label}
              </button>
            ),
          )}
        </div>
      )}
    </div>
  );
}
