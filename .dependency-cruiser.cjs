// The dependency rule of src/ (docs/architecture.md): the layout is a stack of floors, and an import
// may only go down it. Floors, top first; a folder imports only from floors below its own.
/** @type {string[][]} */
const FLOORS = [
  ['src/process/', 'src/cli/'],
  ['src/app\\.ts$'],
  ['src/ops/'],
  ['src/dashboard/'],
  ['src/compat/', 'src/mcp/'],
  ['src/health/'],
  ['src/analytics/'],
  ['src/links/'],
  ['src/webhooks/'],
  ['src/domains/'],
  ['src/people/'],
  ['src/auth/'],
  ['src/audit/'],
  ['src/api/'],
  ['src/edge/'],
  ['src/write/'],
  ['src/resolve/'],
  ['src/redis/'],
  ['src/cache/'],
  ['src/db/'],
  ['src/metrics/'],
  ['src/part\\.ts$', 'src/config/'],
  ['src/core/'],
  ['src/errors\\.ts$'],
  ['src/client/'],
];

const pathOf = (floor) => `^(${floor.join('|')})`;

/** One rule per floor: nothing on it imports from a floor above it. */
const upward = FLOORS.slice(1).map((floor, i) => ({
  name: `no-upward-import-from-${floor[0].replace(/^src\//, '').replace(/[\\$/]|\.ts/g, '') || 'root'}`,
  comment: 'An import runs only down the floors of docs/architecture.md.',
  severity: 'error',
  from: { path: pathOf(floor) },
  to: {
    path: `^(${FLOORS.slice(0, i + 1)
      .flat()
      .join('|')})`,
  },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'Modules that import each other, even through others, are one idea in two rooms.',
      severity: 'error',
      // But in the generated client's runtime, which is the generator's (scripts/client.ts).
      from: { path: '^src/', pathNot: '^src/client/generated/' },
      to: { circular: true },
    },
    {
      name: 'routes-do-not-touch-sql',
      comment: 'A route validates, calls its feature service or store, and renders; SQL and the breaker live in stores.',
      severity: 'error',
      from: { path: '^src/.+/[^/]*routes[^/]*\\.ts$' },
      to: { path: '^src/db/' },
    },
    {
      name: 'src-is-not-test-code',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|load|scripts|web)/' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for the tool: swc parses, and type-only imports count as arrows.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
  },
};
