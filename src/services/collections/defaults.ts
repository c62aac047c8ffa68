import { ConfigError } from '../../config.js'
import type { CollectionSchema } from './declare.js'
import { createBody } from './schema.js'
import { bodyChecker } from './validation.js'

/**
 * A field's `default` (issue 29 item 5) is checked at start against the
 * field's own rules, with the validator bodies are checked with: a default
 * no body could send is a declaration mistake, named by its JSON path. It is
 * applied by the bodies' schemas (ajv's useDefaults) when a create or
 * replace leaves the field out: REST, GraphQL and `rqs import` alike.
 */
export function checkDefaults (collections: readonly CollectionSchema[], source: string): void {
  for (const collection of collections) {
    const body = createBody(collection) as unknown as { properties: Record<string, unknown> }
    for (const [name, field] of Object.entries(collection.properties)) {
      if (field.default === undefined) continue
      const check = bodyChecker({ type: 'object', properties: { [name]: body.properties[name] }, required: [name] })
      const result = check({ [name]: structuredClone(field.default) })
      if ('reason' in result) {
        throw new ConfigError(`${source}: collections.${collection.declaration.name}.schema.properties.${name}.default: ${JSON.stringify(field.default)} breaks the field's own rules (${result.reason}); give a value a client could send`)
      }
    }
  }
}
