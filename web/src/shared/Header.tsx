import { useLocation } from 'preact-iso';
import type { Session } from '../api/client.ts';
import { permissions } from '../auth/context.ts';

interface HeaderProps {
  session: Session;
  onSignOut: () => void;
  signingOut: boolean;
}

export function Header({ session, onSignOut, signingOut }: HeaderProps) {
  const { path } = useLocation();
  const can = permissions(session);
  const items = [
    {
      href: '/app/links',
      label: 'Links',
      current: path === '/app' || path === '/app/links' || (path.startsWith('/app/links/') && path !== '/app/links/new'),
    },
    ...(can.canCreate ? [{ href: '/app/links/new', label: 'New link', current: path === '/app/links/new' }] : []),
    { href: '/app/analytics', label: 'Analytics', current: path === '/app/analytics' },
    ...(can.canCreate ? [{ href: '/app/import', label: 'Import', current: path === '/app/import' }] : []),
    ...(can.canManageKeys ? [{ href: '/app/keys', label: 'Keys', current: path === '/app/keys' }] : []),
    ...(can.canManageDomains ? [{ href: '/app/domains', label: 'Domains', current: path === '/app/domains' }] : []),
    ...(can.canManageWebhooks ? [{ href: '/app/webhooks', label: 'Webhooks', current: path === '/app/webhooks' }] : []),
  ];
  return (
    <header class="site-header">
      <div class="container header-inner">
        <a class="brand" href="/app/links">
          Shortener
        </a>
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
            <strong>{session.key.name}</strong> <span class="role">{session.key.role}</span>
            <span class="workspace">
              <span class="visually-hidden">, workspace </span>
              {session.workspace.name}
            </span>
          </p>
          <button type="button" class="button-small" onClick={onSignOut} aria-disabled={signingOut}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
