// A link's options in one line of text, for its page.
import type { LinkOptions } from '../api.ts';

/** What a summary line says of a link's options; '' for none. */
export function describeOptions(options: LinkOptions | null): string {
  if (options === null) return '';
  const parts: string[] = [];
  if (options.redirectStatus !== undefined && options.redirectStatus !== null) parts.push(`${options.redirectStatus} redirect`);
  if (options.forwardQuery === true) parts.push('query forwarded');
  if (options.forwardQuery === false) parts.push('query not forwarded');
  const rules = options.targets?.length ?? 0;
  if (rules > 0) parts.push(`${rules} targeting rule${rules === 1 ? '' : 's'}`);
  if (options.split !== undefined && options.split !== null && options.split.length > 0)
    parts.push(`A/B split ${options.split.map((v) => v.weight).join('/')}`);
  if (options.preview !== undefined && options.preview !== null) parts.push('social preview');
  if (options.password === true) parts.push('password');
  if (typeof options.clickLimit === 'number') parts.push(`at most ${options.clickLimit.toLocaleString('en-US')} clicks`);
  if (options.deepLink !== undefined && options.deepLink !== null)
    parts.push(
      `app links (${Object.keys(options.deepLink)
        .map((p) => (p === 'ios' ? 'iOS' : 'Android'))
        .join(', ')})`,
    );
  return parts.join(' · ');
}
