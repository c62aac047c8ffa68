import {
  deletionPlan, incomingReferences, missingReference, referenceIdOf,
  type CollectionDeclaration, type FieldData, type IncomingReference, type RecordFilter, type RecordId, type RecordInput, type ReferenceReader, type StoredRecord
} from '../domain/index.js'
import type { SqlTable } from './sql-query.js'

/**
 * What the references need of one collection's store, synchronously (inside
 * the write's own step or transaction). `U` is the store's unit of work where
 * it keeps one of its own (memory's undo log): a cascade inside a unit is
 * written through it, so a unit that fails takes the cascade back too. SQL
 * stores roll back with their transaction and take none.
 */
export interface ReferencedTable<U = never> {
  readonly declaration: CollectionDeclaration
  holds: (id: RecordId) => boolean
  idsWhere: (field: string, value: FieldData) => RecordId[]
  /** Removes a record with its change, bypassing references (a cascade's step). */
  removeNow: (id: RecordId, unit?: U) => void
  /** Clears an optional field with its change (set-null). */
  clearNow: (id: RecordId, field: string, unit?: U) => void
  /** Takes `value` out of a list of references with its change (x-on-delete remove). */
  pullNow: (id: RecordId, field: string, value: FieldData, unit?: U) => void
  /** The ids of the records a filter accepts (filters through references, where the store has no SQL to join in). */
  select?: (filter: RecordFilter) => Promise<RecordId[]>
}

/**
 * The collections of one open store, for the references between them
 * (src/domain/references.ts), where the store writes synchronously (memory;
 * SQLite inside its BEGIN IMMEDIATE transaction, which holds the file's write
 * lock across processes): a write checks its references and a delete applies
 * its plan in the same step or transaction as the write itself, so no other
 * write can come between them.
 */
export class TableReferences<U = never> implements ReferenceReader {
  readonly #tables = new Map<string, ReferencedTable<U>>()
  #incoming: Map<string, IncomingReference[]>

  constructor (declarations: readonly CollectionDeclaration[]) {
    this.#incoming = incomingReferences(declarations)
  }

  /** A collection's table, new or in place of the one of its name (a collection created or changed while the server runs): the references follow its declaration. */
  register (table: ReferencedTable<U>): void {
    this.#tables.set(table.declaration.name, table)
    this.#incoming = incomingReferences([...this.#tables.values()].map((t) => t.declaration))
  }

  /** A collection removed: nothing refers to it or from it any more. */
  unregister (name: string): void {
    this.#tables.delete(name)
    this.#incoming = incomingReferences([...this.#tables.values()].map((t) => t.declaration))
  }

  /** Throws DanglingReferenceError when `input` names a record that does not exist. */
  check (declaration: CollectionDeclaration, input: RecordInput): void {
    if (declaration.references === undefined) return
    const missing = missingReference(declaration, input, (collection, value) => {
      const table = this.#table(collection)
      return table.holds(referenceIdOf(table.declaration, value))
    })
    if (missing !== undefined) throw missing
  }

  /** Throws as `deleting` would (a restricted reference), changing nothing. */
  checkDeleting (collection: string, id: RecordId): void {
    if (this.#incoming.has(collection)) deletionPlan(collection, id, this.#incoming, this)
  }

  /**
   * Before `collection/id` is deleted: refuses (RecordReferencedError), or
   * removes and clears what refers to it, inside `unit` when the delete is.
   */
  deleting (collection: string, id: RecordId, unit?: U): void {
    if (!this.#incoming.has(collection)) return
    const plan = deletionPlan(collection, id, this.#incoming, this)
    for (const { collection: name, id: cleared, field } of plan.cleared) this.#table(name).clearNow(cleared, field, unit)
    for (const { collection: name, id: pulled, field, value } of plan.pulled) this.#table(name).pullNow(pulled, field, value, unit)
    for (const { collection: name, id: removed } of plan.removed) this.#table(name).removeNow(removed, unit)
  }

  /**
   * A test for the records `filter.through` accepts (each reference names a
   * record its target's filter accepts), or undefined without one.
   */
  async through (filter: RecordFilter): Promise<((record: StoredRecord) => boolean) | undefined> {
    if (filter.through === undefined || filter.through.length === 0) return undefined
    const sets = await Promise.all(filter.through.map(async ({ field, target, filter: inner }) => {
      const table = this.#table(target)
      if (table.select === undefined) throw new RangeError(`the store of ${target} cannot select by filter`)
      // A field holds a safe integer: 64-bit ids are compared as the numbers they are.
      return { field, ids: new Set<FieldData>((await table.select(inner)).map((id) => typeof id === 'bigint' ? Number(id) : id)) }
    }))
    return (record) => sets.every(({ field, ids }) => {
      const value = record[field]
      return value !== undefined && value !== null && ids.has(value)
    })
  }

  referring (collection: string, field: string, value: FieldData): RecordId[] {
    return this.#table(collection).idsWhere(field, value)
  }

  #table (name: string): ReferencedTable<U> {
    const table = this.#tables.get(name)
    if (table === undefined) throw new RangeError(`the stores keep no collection ${name}`)
    return table
  }
}

/**
 * The SQL tables each collection's reference fields name, by collection and
 * field, each with its own targets (filters through references, nested):
 * what the query compiler (../sql-query.ts) joins. Declarations have no
 * cycles (the checker refuses them), so the nesting ends.
 */
export function referenceTables (declarations: readonly CollectionDeclaration[], tableOf: (declaration: CollectionDeclaration) => SqlTable<string>): Map<string, Record<string, SqlTable<string>>> {
  const byName = new Map(declarations.map((d) => [d.name, d]))
  const done = new Map<string, Record<string, SqlTable<string>>>()
  const targetsOf = (declaration: CollectionDeclaration): Record<string, SqlTable<string>> => {
    const held = done.get(declaration.name)
    if (held !== undefined) return held
    const targets: Record<string, SqlTable<string>> = {}
    for (const [field, reference] of Object.entries(declaration.references ?? {})) {
      const target = byName.get(reference.collection)
      // A list of references is the import's check (SQLite) but no semi-join: `tags.name=…` is not offered.
      if (target !== undefined) targets[field] = { ...tableOf(target), targets: targetsOf(target) }
    }
    done.set(declaration.name, targets)
    return targets
  }
  for (const declaration of declarations) targetsOf(declaration)
  return done
}
