import type { ServedCollection } from '../../data/collection.js'
import type { CollectionSchema } from './declare.js'
import { servedCollection } from './records.js'
import type { CollectionRegistry } from './registry.js'

/**
 * The collections a server serves as they are now, for those that build
 * something of every collection (the GraphQL schema): those served at start
 * in their order, each declared one as the registry holds it now (gone once
 * removed), then those created while the server runs. Each declaration's
 * ServedCollection is built once (its line checker is compiled) and kept as
 * long as the declaration is.
 */
export class ServedNow {
  readonly #built = new WeakMap<CollectionSchema, ServedCollection>()
  readonly #atStart: readonly ServedCollection[]
  readonly #registry: CollectionRegistry
  readonly #declaredAtStart: ReadonlySet<string>

  constructor (registry: CollectionRegistry, atStart: readonly ServedCollection[]) {
    this.#registry = registry
    this.#atStart = atStart
    this.#declaredAtStart = new Set(registry.entries().map((e) => e.name))
  }

  collections (): ServedCollection[] {
    const registry = this.#registry
    const kept = this.#atStart.flatMap((c) => {
      if (!this.#declaredAtStart.has(c.name)) return [c]
      const entry = registry.get(c.name)
      return entry === undefined ? [] : [this.#servedOf(entry.schema)]
    })
    const created = registry.entries().filter((e) => !this.#atStart.some((c) => c.name === e.name)).map((e) => this.#servedOf(e.schema))
    return [...kept, ...created]
  }

  #servedOf (schema: CollectionSchema): ServedCollection {
    let found = this.#built.get(schema)
    if (found === undefined) {
      found = servedCollection(schema) as ServedCollection
      this.#built.set(schema, found)
    }
    return found
  }
}
