/**
 * A thin bar as long as a value's share of the period's clicks. SVG, so its length is an attribute and not an inline
 * style (which the CSP forbids); hidden from assistive technology, which reads the numbers beside it.
 */
export function ShareBar({ percent }: { percent: number }) {
  return (
    <svg class="share-bar" viewBox="0 0 100 4" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect class="share-bar-track" width="100" height="4" />
      <rect class="share-bar-fill" width={percent} height="4" />
    </svg>
  );
}
