import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Session } from '../api/client.ts';
import { permissions, useApp } from '../auth/context.ts';
import { isOperator } from '../operators/api.ts';
import { WorkspaceSwitcher } from '../people/WorkspaceSwitcher.tsx';

interface HeaderProps {
  session: Session;
  onSignOut: () => void;
  signingOut: boolean;
}

export function Header({ session, onSignOut, signingOut }: HeaderProps) {
  const { path } = useLocation();
  const can = permissions(session);
  const operator = useOperator(session.person !== null);
  const page = (href: string, label: string) => ({ href, label, current: path === href });
  const items = [
    {
      href: '/app/links',
      label: 'Links',
      current: path === '/app' || path === '/app/links' || (path.startsWith('/app/links/') && path !== '/app/links/new'),
    },
    ...(can.canCreate ? [page('/app/links/new', 'New link')] : []),
    page('/app/analytics', 'Analytics'),
    ...(can.canCreate ? [page('/app/import', 'Import')] : []),
    page('/app/members', 'Members'),
    ...(can.canManageKeys ? [page('/app/keys', 'Keys')] : []),
    ...(can.canManageDomains ? [page('/app/domains', 'Domains')] : []),
    ...(can.canManageWebhooks ? [page('/app/webhooks', 'Webhooks')] : []),
    ...(can.canReadAudit ? [page('/app/audit', 'Audit')] : []),
    // Every member reads the workspace's settings; only admins change them (the page says so).
    page('/app/settings', 'Settings'),
    ...(can.isPerson ? [page('/app/profile', 'Profile')] : []),
    ...(operator ? [page('/app/operator', 'Operator')] : []),
  ];
  const several = session.workspaces.length > 1;
  // On a phone the navigation and the account sit behind a menu button (base.css), so the header is one row.
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => setOpen(false), [path]);
  return (
    <header class="site-header">
      <div class="container header-inner">
        <a class="brand" href="/app/links">
          Shortener
          <span class="brand-workspace">
            <span class="visually-hidden">, workspace </span>
            {session.workspace.name}
          </span>
        </a>
        <button
          type="button"
          ref={toggle}
          class="menu-toggle"
          aria-expanded={open}
          aria-controls="site-menu"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
        <div
          id="site-menu"
          class={open ? 'site-menu is-open' : 'site-menu'}
          // A link to the page already shown changes no path: the menu closes on the click itself.
          onClick={(event) => {
            if (event.target instanceof Element && event.target.closest('a') !== null) setOpen(false);
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && open) {
              setOpen(false);
              toggle.current?.focus();
            }
          }}
        >
          <nav aria-label="Main">
            <ul class="nav-list">
              {items.map((item) => (
                <li key={item.href}>
                  <a href={item.href} aria-current={item.current ? 'page' : undefined}>
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <p class="who-text">
              <span class="visually-hidden">Signed in as </span>
              <strong>{session.person?.name ?? session.key.name}</strong> <span class="role">{session.key.role}</span>
              {!several && (
                <span class="workspace">
                  <span class="visually-hidden">, workspace </span>
                  {session.workspace.name}
                </span>
              )}
            </p>
            {several && <WorkspaceSwitcher key={session.workspace.id} session={session} />}
            <button type="button" class="button-small" onClick={onSignOut} aria-disabled={signingOut}>
              Sign out
            </button>
          </div>
        </div>
      </div>
    </header>
  );
}

/** Whether the signed-in person is an operator of the deployment (GET /operator/me), asked once per session; a key's session is not. */
function useOperator(person: boolean): boolean {
  const { api } = useApp();
  const [operator, setOperator] = useState(false);
  useEffect(() => {
    if (!person) return undefined;
    const abort = new AbortController();
    isOperator(api, abort.signal).then(setOperator, () => setOperator(false));
    return () => abort.abort();
  }, [api, person]);
  return operator;
}
