// Which control of the options form an API error is about.

/**
 * The id of the control an API error's field names (`options.targets[1].when.country` →
 * `<prefix>-opt-targets-1-country`); the section's own id for a field of the options as a whole.
 */
export function optionsControlId(prefix: string, field: string): string {
  const target = /^options\.targets\[(\d+)\](\.when)?(?:\.(\w+))?/.exec(field);
  if (target !== null) {
    const [, i, when, part] = target;
    if (part === undefined) return `${prefix}-opt-targets-${i}-${when === undefined ? 'url' : 'device'}`;
    return `${prefix}-opt-targets-${i}-${part === 'query' ? 'queryName' : part}`;
  }
  const variant = /^options\.split\[(\d+)\](?:\.(url|weight))?/.exec(field);
  if (variant !== null) return `${prefix}-opt-split-${variant[1]}-${variant[2] ?? 'url'}`;
  const preview = /^options\.preview(?:\.(title|description|image))?/.exec(field);
  if (preview !== null) return `${prefix}-opt-preview-${preview[1] ?? 'title'}`;
  if (field === 'options.password') return `${prefix}-opt-password`;
  if (field === 'options.clickLimit') return `${prefix}-opt-limit`;
  if (field === 'options.expiredUrl') return `${prefix}-opt-expired`;
  const app = /^options\.deepLink(?:\.(ios|android))?/.exec(field);
  if (app !== null) return `${prefix}-opt-app-${app[1] ?? 'ios'}`;
  if (field === 'options.forwardQuery') return `${prefix}-opt-forward`;
  if (field === 'options.split') return `${prefix}-opt-split-0-weight`;
  if (field === 'options.targets') return `${prefix}-opt-targets-0-url`;
  return `${prefix}-opt-status`;
}
