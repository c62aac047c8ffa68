import { randomUUID } from 'node:crypto'
import {
  conditionHolds, DELETED, UndeclaredFieldError, fieldKindsOf, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, recordOf, sameRecord,
  type CollectionDeclaration, type CreateResult, type FieldData, type DeleteResult, type ImportOutcome, type KeptWrite, type KeyedWrite, type RecordFilter,
  type RecordId, type RecordInput, type RecordQuery, type RecordStore, type StoredRecord, type WriteCondition, type WriteResult
} from '../../domain/index.js'
import { MAX_INT64_ID } from '../../domain/index.js'
import { MemoryKeptWrites } from './kept-writes.js'
import { IndexedTable } from './indexed-table.js'
import { MemoryQueries } from './query.js'
import { MemoryChangeLog } from './changes.js'
import type { Revision } from './revision.js'
import type { ReferencedTable, TableReferences } from '../references.js'

/**
 * The records of one collection in columns with a sorted index per queried
 * field (IndexedTable): reads by id are O(1), writes O(log n) per index.
 * Writes are synchronous, so the id rule, the precondition, the change and a
 * keyed answer happen without a turn of the event loop in between.
 */
export class MemoryRecordStore implements RecordStore, ReferencedTable {
  readonly declaration: CollectionDeclaration
  readonly #records: IndexedTable<RecordId, StoredRecord>
  readonly #queries: MemoryQueries<RecordId, StoredRecord>
  /** Advanced by every write (a plain field, so wrappers that delegate to this store see it too). */
  readonly revision: Revision
  readonly #kept: MemoryKeptWrites
  readonly #changes: MemoryChangeLog
  /** The next id `sequence` or `int64` gives; under `count`, one past the highest id ever issued. */
  #next: number | bigint
  /** The references between the stores of one open (x-references), when given. */
  readonly #references: TableReferences | undefined

  constructor (declaration: CollectionDeclaration, kept = new MemoryKeptWrites(), changes = new MemoryChangeLog(), references?: TableReferences) {
    this.declaration = declaration
    const kinds = fieldKindsOf(declaration)
    const optional = Object.keys(declaration.fields).filter((f) => declaration.fields[f]?.required === false)
    const dense = declaration.ids === 'count' || declaration.ids === 'sequence'
    this.#records = new IndexedTable<RecordId, StoredRecord>({ kinds, fields: Object.keys(declaration.fields), optional, firstId: dense ? declaration.firstId : undefined })
    this.#queries = new MemoryQueries(this.#records, kinds, declaration.name)
    this.revision = this.#records.revision
    this.#kept = kept
    this.#changes = changes
    this.#next = declaration.ids === 'int64' ? 1n : declaration.firstId
    this.#references = references
    references?.register(this)
  }

  async get (id: RecordId): Promise<StoredRecord | undefined> {
    return this.#records.get(id)
  }

  async getMany (ids: readonly RecordId[]): Promise<StoredRecord[]> {
    return ids.flatMap((id) => { const record = this.#records.get(id); return record === undefined ? [] : [record] })
  }

  async withValues (field: string, values: readonly FieldData[], perValue: number, filter?: RecordFilter): Promise<StoredRecord[]> {
    if (!Object.hasOwn(this.declaration.fields, field)) throw new UndeclaredFieldError(this.declaration.name, field)
    const sorted = [...new Set(values)].sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
    if (filter === undefined) return sorted.flatMap((value) => (this.#records.equalRange(field, value, Infinity) ?? []).slice(0, perValue))
    const found: StoredRecord[] = []
    for (const value of sorted) found.push(...await this.query({ ...filter, where: [...filter.where, { field, op: 'eq', value }], sort: [], limit: perValue }))
    return found
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    return this.#kept.find(key)
  }

  async create (input: RecordInput, keyed?: KeyedWrite<CreateResult>): Promise<CreateResult> {
    return this.#kept.run(keyed, () => {
      this.#references?.check(this.declaration, input)
      const id = this.#newId()
      const record = recordOf(this.declaration, id, input)
      const outcome = this.#records.has(id) ? 'replaced' : 'created'
      this.#store(outcome, record)
      return { outcome, record }
    })
  }

  async put (id: RecordId, input: RecordInput, condition: WriteCondition<StoredRecord> = NO_CONDITION, keyed?: KeyedWrite<WriteResult>): Promise<WriteResult> {
    return this.#kept.run(keyed, (): WriteResult => {
      const current = this.#records.get(id)
      if (current === undefined && !this.declaration.putCreates) return NOT_FOUND
      if (!conditionHolds(condition, current, sameRecord)) return PRECONDITION_FAILED
      this.#references?.check(this.declaration, input)
      if (current === undefined) {
        const record = recordOf(this.declaration, id, input)
        this.#store('created', record)
        return { outcome: 'created', record }
      }
      const record = recordOf(this.declaration, id, keptFields(this.declaration, current, input))
      this.#store('replaced', record)
      return { outcome: 'replaced', record }
    })
  }

  async delete (id: RecordId, condition: WriteCondition<StoredRecord> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return this.#kept.run(keyed, () => {
      const current = this.#records.get(id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameRecord)) return PRECONDITION_FAILED
      this.#references?.deleting(this.declaration.name, id)
      this.removeNow(id)
      return DELETED
    })
  }

  holds (id: RecordId): boolean {
    return this.#records.has(id)
  }

  idsWhere (field: string, value: FieldData): RecordId[] {
    return (this.#records.equalRange(field, value, Infinity) ?? []).map((r) => r.id)
  }

  removeNow (id: RecordId): void {
    if (!this.#records.delete(id)) return
    this.#changes.changed(this.declaration.name, 'deleted', id, null)
  }

  clearNow (id: RecordId, field: string): void {
    const current = this.#records.get(id)
    if (current === undefined) return
    const input: Record<string, FieldData | undefined> = { ...current }
    delete input[field]
    this.#store('replaced', recordOf(this.declaration, id, input))
  }

  async query (query: RecordQuery): Promise<StoredRecord[]> {
    return await this.#queries.query(query, await this.#references?.through(query))
  }

  async count (filter: RecordFilter): Promise<number> {
    return await this.#queries.count(filter, await this.#references?.through(filter))
  }

  batches (query: RecordQuery): AsyncIterable<StoredRecord[]> {
    if (query.through === undefined) return this.#queries.batches(query)
    return this.#throughBatches(query)
  }

  /** Filters through references are resolved once, before the first batch. */
  async * #throughBatches (query: RecordQuery): AsyncGenerator<StoredRecord[]> {
    yield * this.#queries.batches(query, await this.#references?.through(query))
  }

  async select (filter: RecordFilter): Promise<RecordId[]> {
    return (await this.query({ ...filter, sort: [] })).map((r) => r.id)
  }

  /**
   * All or nothing: every record is read before any is stored (the last line
   * of an id wins), then stored in id order with one change each, as the SQL
   * stores do. Ids are kept; the id rule goes on from the records held.
   */
  async importAll (source: AsyncIterable<readonly StoredRecord[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number> {
    const staged = new Map<RecordId, StoredRecord>()
    let count = 0
    for await (const batch of source) {
      for (const r of batch) staged.set(r.id, recordOf(this.declaration, r.id, r))
      count += batch.length
    }
    // References are checked as a write's are, before anything is stored: all or nothing.
    for (const r of staged.values()) this.#references?.check(this.declaration, r)
    let replaced = 0
    for (const r of [...staged.values()].sort(byId)) {
      const held = this.#records.has(r.id)
      if (held) replaced++
      this.#store(held ? 'replaced' : 'created', r)
      this.#issued(r.id)
    }
    onApplied?.({ created: staged.size - replaced, replaced })
    return count
  }

  #store (kind: 'created' | 'replaced', record: StoredRecord): void {
    this.#records.set(record.id, record)
    this.#changes.changed(this.declaration.name, kind, record.id, record)
  }

  #newId (): RecordId {
    switch (this.declaration.ids) {
      case 'count': {
        const id = this.declaration.firstId + this.#records.size
        this.#issued(id)
        return id
      }
      case 'sequence': {
        const id = this.#next as number
        this.#next = id + 1
        return id
      }
      case 'int64': {
        let id = this.#next as bigint
        while (this.#records.has(id)) id++
        if (id > MAX_INT64_ID) throw new RangeError(`${this.declaration.name} ids are exhausted`)
        this.#next = id + 1n
        return id
      }
      case 'uuid': return randomUUID()
    }
  }

  /** Under `count` and `sequence`, an id stored by a create or an import is never issued again by `sequence`. */
  #issued (id: RecordId): void {
    if (typeof id === 'number' && typeof this.#next === 'number') this.#next = Math.max(this.#next, id + 1)
  }
}

/** An update's fields: the write's, except those the declaration keeps from the stored record. */
function keptFields (declaration: CollectionDeclaration, current: StoredRecord, input: RecordInput): RecordInput {
  if (declaration.keptOnUpdate.length === 0) return input
  const merged: Record<string, unknown> = { ...input }
  for (const field of declaration.keptOnUpdate) merged[field] = current[field]
  return merged as RecordInput
}

function byId (a: StoredRecord, b: StoredRecord): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}
