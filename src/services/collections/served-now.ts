import type { ServedCollection } from '../../data/collection.js'
import type { CollectionSchema } from './declare.js'
import { servedCollection } from './records.js'
import type { CollectionRegistry } from './registry.js'

/** What a collection's name gives as it is now (its model, its rules): a Map's lookup, or one that asks the collections now. */
export type ByName<T> = Pick<ReadonlyMap<string, T>, 'get'>

/**
 * The collections a server serves as they are now, one at a time by name or
 * all in their order: what the change feed and the webhooks carry, whose
 * collections may change while the server runs.
 */
export interface CollectionsNow {
  /** Every collection served now, in the order of collections(). */
  names: () => readonly string[]
  /** The collection of this name as it is now; undefined for none (never served, or removed). */
  get: (name: string) => ServedCollection | undefined
}

/** The collections served at start, for a server whose collections never change (no admin API of collections). */
export function fixedCollections (atStart: readonly ServedCollection[]): CollectionsNow {
  const names = atStart.map((c) => c.name)
  const byName = new Map(atStart.map((c) => [c.name, c]))
  return { names: () => names, get: (name) => byName.get(name) }
}

/** The collections as they are now: the registry's when the server has one, else those served at start. */
export function collectionsNow (registry: CollectionRegistry | undefined, atStart: readonly ServedCollection[]): CollectionsNow {
  return registry === undefined ? fixedCollections(atStart) : new ServedNow(registry, atStart)
}

/**
 * The collections a server serves as they are now, for those that build
 * something of every collection (the GraphQL schema) or read one by name
 * (the change feed, the webhooks): those served at start in their order,
 * each declared one as the registry holds it now (gone once removed), then
 * those created while the server runs. Each declaration's ServedCollection
 * is built once (its line checker is compiled) and kept as long as the
 * declaration is, so a caller may key what it builds of one by its object.
 */
export class ServedNow implements CollectionsNow {
  readonly #built = new WeakMap<CollectionSchema, ServedCollection>()
  readonly #atStart: readonly ServedCollection[]
  readonly #atStartByName: ReadonlyMap<string, ServedCollection>
  readonly #registry: CollectionRegistry
  readonly #declaredAtStart: ReadonlySet<string>

  constructor (registry: CollectionRegistry, atStart: readonly ServedCollection[]) {
    this.#registry = registry
    this.#atStart = atStart
    this.#atStartByName = new Map(atStart.map((c) => [c.name, c]))
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

  names (): string[] {
    return this.collections().map((c) => c.name)
  }

  get (name: string): ServedCollection | undefined {
    const entry = this.#registry.get(name)
    if (entry !== undefined) return this.#servedOf(entry.schema)
    // A built-in collection (never in the registry), or one declared at start and since removed.
    return this.#declaredAtStart.has(name) ? undefined : this.#atStartByName.get(name)
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
