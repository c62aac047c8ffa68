import { createRequire } from 'node:module'
import type { FastifyServerOptions } from 'fastify'
import { onFirstUse } from '../../lib/first-use.js'

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>
type Stringify = (data: unknown) => string
type Build = (schema: unknown, options: Record<string, unknown>) => Stringify

const requireHere = createRequire(import.meta.url)

/**
 * Fastify's own response serialisers (fast-json-stringify, with the options
 * and shared schemas Fastify hands it, as @fastify/fast-json-stringify-compiler
 * does), each compiled when its route first answers with that status rather
 * than when the route is added: a start compiles none (most of the answers a
 * route declares, its errors', are rarely or never sent), and
 * fast-json-stringify itself is loaded by the first answer that needs it.
 */
export const serializersOnFirstUse: SerializerFactory = (externalSchemas, serializerOptions) => {
  const options: Record<string, unknown> = { ...serializerOptions, schema: externalSchemas }
  return ({ schema }: { schema?: unknown }) => {
    const compiled = onFirstUse(() => {
      // A schema that is one of the shared ones is not handed to itself as external (the compiler's own rule).
      const id = (schema as { $id?: string } | undefined)?.$id
      const shared = options.schema as Record<string, unknown> | undefined
      if (shared !== undefined && id !== undefined && shared[id] !== undefined) {
        options.schema = { ...shared }
        delete (options.schema as Record<string, unknown>)[id]
      }
      return (requireHere('fast-json-stringify') as Build)(schema, options)
    })
    return (data: unknown) => compiled()(data)
  }
}
