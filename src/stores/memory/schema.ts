import type { CollectionDeclaration, RecordStore, SavedDeclaration, SchemaChanges, SchemaFindings, SchemaHistoryEntry, SchemaPlan, StoredRecord } from '../../domain/index.js'
import { findingsOf, migratedRecord } from '../schema-changes.js'
import type { ReferencedTable, TableReferences } from '../references.js'
import type { MemoryUnit } from './unit.js'

/**
 * Changes of collections in memory: a changed collection is a new table
 * that takes over the records held as the plan makes them (one turn of the
 * event loop, so no write sees it half done); the declarations and their
 * history are kept as long as the process runs.
 */
/** What a memory collection's store offers a change: its count of writes, and its retirement once its records moved on. */
interface ChangeableStore extends RecordStore, ReferencedTable<MemoryUnit> {
  readonly revision: { readonly current: number }
  retire: () => void
  /** Stores the records held before the change, as they are, announcing none. */
  takeOver: (records: readonly StoredRecord[]) => void
}

export class MemorySchema<S extends ChangeableStore> implements SchemaChanges {
  readonly #collections: Map<string, S>
  readonly #open: (declaration: CollectionDeclaration) => S
  readonly #saved = new Map<string, SavedDeclaration>()
  readonly #history: SchemaHistoryEntry[] = []

  readonly #references: TableReferences<MemoryUnit> | undefined

  /** `open` makes a store that takes part in `references` (it registers itself there as it is made). */
  constructor (collections: Map<string, S>, open: (declaration: CollectionDeclaration) => S, references?: TableReferences<MemoryUnit>) {
    this.#collections = collections
    this.#open = open
    this.#references = references
  }

  async inspect (plan: SchemaPlan, before: CollectionDeclaration): Promise<SchemaFindings> {
    const store = this.#collections.get(before.name)
    return store === undefined ? { records: 0, lost: {}, unconvertible: [], duplicates: [] } : await findingsOf(store, plan)
  }

  async apply (plan: SchemaPlan, _before: CollectionDeclaration | undefined, after: CollectionDeclaration | undefined, entry: SchemaHistoryEntry): Promise<RecordStore | undefined> {
    const old = this.#collections.get(plan.collection)
    let next: S | undefined
    if (after !== undefined) {
      // The copy takes turns of the event loop: a write that lands meanwhile makes it start again, so the new store
      // takes over exactly the records held at the moment of the swap (checked and swapped in one turn).
      for (;;) {
        const at = old?.revision.current
        next = this.#open(after)
        // Until the swap, references still reach the store that holds the records.
        if (old !== undefined) this.#references?.register(old)
        if (old !== undefined) {
          const held: StoredRecord[] = []
          for await (const batch of old.batches({ where: [], sort: [] })) for (const r of batch) held.push(migratedRecord(r, plan))
          // No change announced: a change of a collection is no write of its records (as on SQLite and PostgreSQL).
          if (held.length > 0) next.takeOver(held)
        }
        if (old?.revision.current === at) break
      }
      this.#collections.set(plan.collection, next)
      this.#references?.register(next)
    } else {
      this.#collections.delete(plan.collection)
      this.#references?.unregister(plan.collection)
    }
    // A write that began before the change and arrives now is refused (503), not lost in a store nobody reads.
    old?.retire()
    await this.record(entry)
    return next
  }

  async open (declaration: CollectionDeclaration): Promise<RecordStore> {
    const store = this.#open(declaration)
    this.#collections.set(declaration.name, store)
    return store
  }

  async record (entry: SchemaHistoryEntry): Promise<void> {
    this.#saved.set(entry.name, { name: entry.name, version: entry.version, source: entry.source })
    this.#history.push(entry)
  }

  async saved (): Promise<SavedDeclaration[]> {
    return [...this.#saved.values()]
  }

  async history (name: string): Promise<SchemaHistoryEntry[]> {
    return this.#history.filter((e) => e.name === name)
  }
}
