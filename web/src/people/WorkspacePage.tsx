import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';

/** The workspace's settings moved to the Settings page: an old address or bookmark goes there. */
export function WorkspacePage() {
  const { route } = useLocation();
  useEffect(() => route('/app/settings', true), []);
  return <p class="loading">Opening the settings…</p>;
}
