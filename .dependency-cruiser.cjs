// @ts-check
/**
 * The layers of src/ and the rule that imports only go down them (docs/architecture.md,
 * "The layers"), checked by dependency-cruiser: `npm run lint` runs it after eslint, and
 * test/layers.test.ts runs it through its API so `npm test` shows a break too.
 * Type-only imports count (`tsPreCompilationDeps`): a type that reaches upward ties
 * the layers as much as a value does.
 */

/**
 * Bottom first. A module may import its own layer and any below it, never one above.
 * Each entry is a path pattern (a regular expression on the path from the project root).
 */
const LAYERS = [
  ['lib', '^src/(lib/|version\\.ts$)'],
  ['domain', '^src/domain/'],
  ['records', '^src/records/'],
  ['config', '^src/(config/|config\\.ts$)'],
  ['stores', '^src/stores/'],
  // src/http/, itself in layers: the error pipeline and its pages, then what every
  // cross-cutting plugin reads (the route declaration), then the plugins in the order
  // they lean on each other.
  ['http/html', '^src/http/html/'],
  ['http/errors', '^src/http/errors/'],
  ['http/routes', '^src/http/routes/'],
  ['http/transport', '^src/http/transport/'],
  ['http/rest', '^src/http/rest/'],
  ['http/openapi', '^src/http/openapi/'],
  ['http/operations', '^src/http/operations/'],
  ['http/security', '^src/http/security/'],
  // The registry of long-lived streams: it ends a stream when its token is revoked or expires.
  ['http/streams', '^src/http/streams/'],
  ['data', '^src/data/'],
  ['graphql', '^src/graphql/'],
  ['services', '^src/services/'],
  ['options', '^src/options\\.ts$'],
  ['server', '^src/server\\.ts$'],
  ['cli', '^src/cli/'],
  ['commands', '^src/commands/'],
  ['cli.ts', '^src/cli\\.ts$'],
  ['bin', '^src/(bin|executable)\\.ts$']
]

/** One rule per layer: nothing in it imports a layer above it. */
const upward = LAYERS.slice(0, -1).map(([name, path], i) => ({
  name: `layer-${name}`,
  comment: `${name} imports only the layers below it: ${LAYERS.slice(0, i).map(([n]) => n).join(', ') || 'none'} (docs/architecture.md)`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => p) }
}))

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle in src/, type imports included: a cycle makes the layers one.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true }
    },
    {
      name: 'no-unlayered',
      comment: 'Every module of src/ is in a layer of .dependency-cruiser.cjs (add a new folder there and to docs/architecture.md).',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.map(([, p]) => p) },
      to: {}
    },
    {
      name: 'concrete-stores',
      comment: 'Only src/stores opens a concrete store: everything else uses the contract in src/domain.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/stores/' },
      to: { path: '^src/stores/(memory|sqlite|postgres)/' }
    },
    ...upward
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Only src/ is checked (tests and scripts may reach anywhere).
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' }
  }
}
