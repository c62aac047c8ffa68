import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { nextTurn } from '../../graphql/turns.js'

/** Stands for each module of graphql-js's validation rules (graphql/validation/rules/*.js). */
const RULES = Symbol('graphql-js validation rules')

/**
 * The GraphQL side's packages, loaded a part per turn of the event loop
 * before ./protocol.js is imported: importing it at once loads graphql-js,
 * graphql-jit, graphql-http and graphql-sse in one block of ≈ 180 ms of CPU
 * (graphql-js and graphql-jit are CommonJS, which Node loads synchronously).
 * Each part below is a few to 25 ms; what ./protocol.js then imports is
 * found loaded. The order is the one they need each other in, so that no
 * part pulls the next one in with it; graphql-js's validation rules (RULES)
 * are 35 modules, 55 ms together, loaded one at a time.
 */
const COMMONJS_PARTS = [
  'graphql/error/index.js',
  'graphql/language/index.js',
  'graphql/type/definition.js',
  'graphql/type/index.js',
  RULES,
  'graphql/validation/index.js',
  'graphql/execution/index.js',
  'graphql/utilities/index.js',
  'graphql',
  'lodash.merge',
  'lodash.mergewith',
  'lodash.memoize',
  'generate-function',
  'fast-json-stringify',
  'graphql-jit/dist/inspect',
  'graphql-jit/dist/ast',
  'graphql-jit/dist/execution'
]

/** Node's CommonJS loader, from here (the bundle rewrites this module's URL to its tsc output, so packages resolve from dist/ alike). */
const load = createRequire(import.meta.url)

/** The files of graphql-js's validation rules, as installed. */
function validationRules (): string[] {
  const dir = join(dirname(load.resolve('graphql/validation/specifiedRules.js')), 'rules')
  return readdirSync(dir).filter((file) => file.endsWith('.js')).sort().map((file) => join(dir, file))
}

/** Loads the GraphQL side's packages and modules, a part at a time. */
export async function loadGraphqlPackages (): Promise<void> {
  for (const part of COMMONJS_PARTS) {
    for (const file of typeof part === 'symbol' ? validationRules() : [part]) {
      load(file)
      await nextTurn()
    }
  }
  await import('graphql-jit')
  await nextTurn()
  await import('graphql-http')
  await nextTurn()
  await import('graphql-sse/lib/use/fastify')
  await nextTurn()
  await import('../../graphql/schema.js')
  await nextTurn()
}
