import { formatCount } from '../../shared/format.ts';

const WIDTH = 56;
const HEIGHT = 18;

/**
 * A link's clicks by people over the last days (GET /links?include=trend) as a small line, drawn as inline SVG
 * (no script, no style attribute: the CSP allows it). Screen readers get the sum in words instead.
 */
export function Sparkline({ trend }: { trend: readonly number[] }) {
  const max = Math.max(1, ...trend);
  const step = trend.length > 1 ? WIDTH / (trend.length - 1) : 0;
  const points = trend.map((count, i) => `${(i * step).toFixed(1)},${(HEIGHT - 1 - (count / max) * (HEIGHT - 2)).toFixed(1)}`).join(' ');
  const sum = trend.reduce((a, b) => a + b, 0);
  return (
    <span class={sum === 0 ? 'sparkline sparkline-flat' : 'sparkline'}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width={WIDTH} height={HEIGHT} aria-hidden="true" focusable="false">
        <polyline points={points} fill="none" />
      </svg>
      <span class="visually-hidden">
        , {formatCount(sum)} in the last {trend.length} days
      </span>
    </span>
  );
}
