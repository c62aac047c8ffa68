import {
  deletionPlan, incomingReferences, missingReference, referenceIdOf,
  type CollectionDeclaration, type FieldData, type IncomingReference, type RecordId, type RecordInput, type ReferenceReader
} from '../domain/index.js'

/** What the references need of one collection's store, synchronously (inside the write's own step or transaction). */
export interface ReferencedTable {
  readonly declaration: CollectionDeclaration
  holds: (id: RecordId) => boolean
  idsWhere: (field: string, value: FieldData) => RecordId[]
  /** Removes a record with its change, bypassing references (a cascade's step). */
  removeNow: (id: RecordId) => void
  /** Clears an optional field with its change (set-null). */
  clearNow: (id: RecordId, field: string) => void
}

/**
 * The collections of one open store, for the references between them
 * (src/domain/references.ts), where the store writes synchronously (memory;
 * SQLite inside its BEGIN IMMEDIATE transaction, which holds the file's write
 * lock across processes): a write checks its references and a delete applies
 * its plan in the same step or transaction as the write itself, so no other
 * write can come between them.
 */
export class TableReferences implements ReferenceReader {
  readonly #tables = new Map<string, ReferencedTable>()
  readonly #incoming: Map<string, IncomingReference[]>

  constructor (declarations: readonly CollectionDeclaration[]) {
    this.#incoming = incomingReferences(declarations)
  }

  register (table: ReferencedTable): void {
    this.#tables.set(table.declaration.name, table)
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

  /** Before `collection/id` is deleted: refuses (RecordReferencedError), or removes and clears what refers to it. */
  deleting (collection: string, id: RecordId): void {
    if (!this.#incoming.has(collection)) return
    const plan = deletionPlan(collection, id, this.#incoming, this)
    for (const { collection: name, id: cleared, field } of plan.cleared) this.#table(name).clearNow(cleared, field)
    for (const { collection: name, id: removed } of plan.removed) this.#table(name).removeNow(removed)
  }

  referring (collection: string, field: string, value: FieldData): RecordId[] {
    return this.#table(collection).idsWhere(field, value)
  }

  #table (name: string): ReferencedTable {
    const table = this.#tables.get(name)
    if (table === undefined) throw new RangeError(`the stores keep no collection ${name}`)
    return table
  }
}
