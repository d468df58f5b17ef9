import { Page } from './Page.tsx';

export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <p>There is no page at this address in the dashboard.</p>
      <p>
        <a href="/app/links">Go to the links</a>
      </p>
    </Page>
  );
}
