import { randomUUID } from 'node:crypto'
import {
  conditionHolds, DELETED, UndeclaredFieldError, fieldKindsOf, matcher, mergePatch, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, recordOf, sameRecord,
  type CollectionDeclaration, type CreateResult, type FieldData, type FieldValue, type DeleteResult, type ImportOutcome, type KeptWrite, type KeyedWrite, type RecordFilter, type SortKey,
  type RecordId, type RecordInput, type RecordQuery, type RecordStore, type RecordWrites, type StoredRecord, type WriteCondition, type WriteResult
} from '../../domain/index.js'
import type { AggregateQuery, AggregateRow } from '../../domain/index.js'
import { aggregateRecords, MAX_INT64_ID, SchemaChangedError } from '../../domain/index.js'
import { MemoryKeptWrites } from './kept-writes.js'
import { IndexedTable } from './indexed-table.js'
import { MemoryQueries } from './query.js'
import { MemoryChangeLog } from './changes.js'
import { UniqueKeys } from './unique-keys.js'
import type { Revision } from './revision.js'
import type { MemoryUnit } from './unit.js'
import { PAUSE } from './scan.js'
import type { ReferencedTable, TableReferences } from '../references.js'
import { ReadBudget } from '../read-budget.js'

/**
 * The records of one collection in columns with a sorted index per queried
 * field (IndexedTable): reads by id are O(1), writes O(log n) per index.
 * Writes are synchronous, so the id rule, the precondition, the change and a
 * keyed answer happen without a turn of the event loop in between.
 */
export class MemoryRecordStore implements RecordStore, ReferencedTable<MemoryUnit> {
  readonly declaration: CollectionDeclaration
  readonly #records: IndexedTable<RecordId, StoredRecord>
  readonly #queries: MemoryQueries<RecordId, StoredRecord>
  /** Advanced by every write (a plain field, so wrappers that delegate to this store see it too). */
  readonly revision: Revision
  readonly #kept: MemoryKeptWrites
  readonly #changes: MemoryChangeLog
  readonly #unique: UniqueKeys
  /** The next id `sequence` or `int64` gives; under `count`, one past the highest id ever issued. */
  #next: number | bigint
  /** The references between the stores of one open (x-references), when given. */
  readonly #references: TableReferences<MemoryUnit> | undefined
  /** Set when a change of the collection moved its records to a new store (./schema.ts): a write still on its way here is refused, never lost. */
  #retired = false

  constructor (declaration: CollectionDeclaration, kept = new MemoryKeptWrites(), changes = new MemoryChangeLog(), references?: TableReferences<MemoryUnit>, budget = ReadBudget.NONE) {
    this.declaration = declaration
    const kinds = fieldKindsOf(declaration)
    const optional = Object.keys(declaration.fields).filter((f) => declaration.fields[f]?.required === false)
    const dense = declaration.ids === 'count' || declaration.ids === 'sequence'
    this.#records = new IndexedTable<RecordId, StoredRecord>({ kinds, fields: Object.keys(declaration.fields), optional, firstId: dense ? declaration.firstId : undefined })
    this.#queries = new MemoryQueries(this.#records, kinds, declaration.name, budget)
    this.revision = this.#records.revision
    this.#kept = kept
    this.#changes = changes
    this.#unique = new UniqueKeys(declaration)
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

  async withValues (field: string, values: readonly FieldData[], perValue: number, filter?: RecordFilter, sort: readonly SortKey[] = []): Promise<StoredRecord[]> {
    if (!Object.hasOwn(this.declaration.fields, field)) throw new UndeclaredFieldError(this.declaration.name, field)
    // Reference values are ids: scalars.
    const sorted = [...new Set(values as readonly FieldValue[])].sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
    if (filter === undefined && sort.length === 0) return sorted.flatMap((value) => (this.#records.equalRange(field, value, Infinity) ?? []).slice(0, perValue))
    const within = filter ?? { where: [] }
    const found: StoredRecord[] = []
    for (const value of sorted) found.push(...await this.query({ ...within, where: [...within.where, { field, op: 'eq', value }], sort, limit: perValue }))
    return found
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    return this.#kept.find(key)
  }

  async create (input: RecordInput, keyed?: KeyedWrite<CreateResult>): Promise<CreateResult> {
    // Without a key (most creates) the write itself: no closure made for the keeping that does not happen.
    if (keyed === undefined) return this.#create(input)
    return this.#kept.run(keyed, () => this.#create(input))
  }

  /**
   * All or nothing: every record is built and its unique keys checked before
   * any is stored, and storing is synchronous, so no other write comes in
   * between. The ids are drawn in turn (an int64 collection's that run out
   * fail before anything is stored).
   */
  async createMany (inputs: readonly RecordInput[], keyed?: KeyedWrite<CreateResult[]>): Promise<CreateResult[]> {
    return this.#kept.run(keyed, () => {
      if (this.declaration.ids === 'count') return inputs.map((input) => this.#create(input))
      const next = this.#next
      let records: StoredRecord[]
      try {
        for (const input of inputs) this.#references?.check(this.declaration, input)
        records = inputs.map((input) => recordOf(this.declaration, this.#newId(), input))
        if (!this.#unique.empty) this.#unique.checkAll(new Map(records.map((r) => [r.id, r])))
      } catch (err) {
        this.#next = next
        throw err
      }
      return records.map((record) => {
        const outcome = this.#records.has(record.id) ? 'replaced' : 'created'
        this.#store(outcome, record)
        return { outcome, record }
      })
    })
  }

  async put (id: RecordId, input: RecordInput, condition: WriteCondition<StoredRecord> = NO_CONDITION, keyed?: KeyedWrite<WriteResult>): Promise<WriteResult> {
    return this.#kept.run(keyed, () => this.#put(id, input, condition))
  }

  async delete (id: RecordId, condition: WriteCondition<StoredRecord> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return this.#kept.run(keyed, () => this.#delete(id, condition))
  }

  /** This collection inside a unit of work: the same writes, each leaving its undo step, its change held back until commit. */
  writesIn (unit: MemoryUnit): RecordWrites {
    return {
      declaration: this.declaration,
      get: async (id) => { unit.open(); return this.#records.get(id) },
      create: async (input) => { unit.open(); return this.#create(input, unit) },
      put: async (id, input, condition = NO_CONDITION) => { unit.open(); return this.#put(id, input, condition, unit) },
      delete: async (id, condition = NO_CONDITION) => { unit.open(); return this.#delete(id, condition, unit) }
    }
  }

  #create (input: RecordInput, unit?: MemoryUnit): CreateResult {
    // Checked before an id is issued: a refused create spends none (as on the SQL stores, whose transaction rolls back).
    if (!this.#unique.empty) this.#unique.check(input, undefined)
    this.#references?.check(this.declaration, input)
    if (unit !== undefined) {
      const next = this.#next
      unit.undo(() => { this.#next = next })
    }
    const id = this.#newId()
    const record = recordOf(this.declaration, id, input)
    const outcome = this.#records.has(id) ? 'replaced' : 'created'
    this.#store(outcome, record, unit)
    return { outcome, record }
  }

  #put (id: RecordId, input: RecordInput, condition: WriteCondition<StoredRecord>, unit?: MemoryUnit): WriteResult {
    const current = this.#records.get(id)
    if (current === undefined && !this.declaration.putCreates) return NOT_FOUND
    if (!conditionHolds(condition, current, sameRecord)) return PRECONDITION_FAILED
    this.#unique.check(input, id)
    this.#references?.check(this.declaration, input)
    if (current === undefined) {
      const record = recordOf(this.declaration, id, input)
      this.#store('created', record, unit)
      return { outcome: 'created', record }
    }
    const record = recordOf(this.declaration, id, keptFields(this.declaration, current, input))
    this.#store('replaced', record, unit)
    return { outcome: 'replaced', record }
  }

  #delete (id: RecordId, condition: WriteCondition<StoredRecord>, unit?: MemoryUnit): DeleteResult {
    const current = this.#records.get(id)
    if (current === undefined) return NOT_FOUND
    if (!conditionHolds(condition, current, sameRecord)) return PRECONDITION_FAILED
    // Restrict refuses here; cascade, set-null and remove change the referring
    // records now, through the unit when there is one (a failed batch takes them back).
    this.#references?.deleting(this.declaration.name, id, unit)
    this.removeNow(id, unit)
    return DELETED
  }

  /**
   * The records the filter selects are found first, then (synchronously,
   * so nothing comes in between) each still held and still matching is
   * written: all of them, with a change each, or (a failure) none.
   */
  async updateWhere (filter: RecordFilter, patch: Readonly<Record<string, unknown>>, keyed?: KeyedWrite<number>): Promise<number> {
    const candidates = await this.#queries.query({ ...filter, sort: [] })
    return this.#kept.run(keyed, () => {
      const records = this.#stillMatching(filter, candidates).map((current) => recordOf(this.declaration, current.id, mergePatch(this.declaration, current, patch) as RecordInput))
      if (!this.#unique.empty) this.#unique.checkAll(new Map(records.map((r) => [r.id, r])))
      for (const record of records) this.#references?.check(this.declaration, record)
      for (const record of records) this.#store('replaced', record)
      return records.length
    })
  }

  async deleteWhere (filter: RecordFilter, keyed?: KeyedWrite<number>): Promise<number> {
    const candidates = await this.#queries.query({ ...filter, sort: [] })
    return this.#kept.run(keyed, () => {
      const records = this.#stillMatching(filter, candidates)
      // Every record's references are checked before any is deleted (a restricted one refuses them all).
      for (const record of records) this.#references?.checkDeleting(this.declaration.name, record.id)
      for (const record of records) {
        this.#references?.deleting(this.declaration.name, record.id)
        this.removeNow(record.id)
      }
      return records.length
    })
  }

  /** The candidates as held now that the filter still selects (a write may have come in between). */
  #stillMatching (filter: RecordFilter, candidates: readonly StoredRecord[]): StoredRecord[] {
    const matches = matcher<StoredRecord>(filter, fieldKindsOf(this.declaration))
    return candidates.flatMap((c) => {
      const now = this.#records.get(c.id)
      return now !== undefined && matches(now) ? [now] : []
    })
  }

  holds (id: RecordId): boolean {
    return this.#records.has(id)
  }

  idsWhere (field: string, value: FieldData): RecordId[] {
    if (this.declaration.fields[field]?.type === 'list') {
      // A list of references has no index of its items: the records are scanned, in id order.
      const ids: RecordId[] = []
      for (const record of this.#records.walk('id', undefined, -Infinity, false)) {
        if (record === PAUSE) continue
        const items = record[field]
        if (Array.isArray(items) && items.includes(value)) ids.push(record.id)
      }
      return ids
    }
    return (this.#records.equalRange(field, value as FieldValue, Infinity) ?? []).map((r) => r.id)
  }

  /**
   * This store no longer holds its collection (its records moved to the
   * store of a changed declaration): a write that began before the change
   * and arrives now is refused as a store that cannot serve (503, sent again
   * it reaches the new store), rather than written where nobody reads it.
   */
  retire (): void {
    this.#retired = true
  }

  #writable (): void {
    if (this.#retired) throw new SchemaChangedError(this.declaration.name, `the collection ${this.declaration.name} was changed while this write was on its way; send it again`)
  }

  removeNow (id: RecordId, unit?: MemoryUnit): void {
    this.#writable()
    const current = this.#records.get(id)
    if (current === undefined || !this.#records.delete(id)) return
    this.#unique.move(current, undefined)
    if (unit === undefined) {
      this.#changes.changed(this.declaration.name, 'deleted', id, null)
      return
    }
    unit.undo(() => {
      this.#records.set(id, current)
      this.#unique.move(undefined, current)
    })
    unit.changed(this.declaration.name, 'deleted', id, null)
  }

  pullNow (id: RecordId, field: string, value: FieldData, unit?: MemoryUnit): void {
    const current = this.#records.get(id)
    const items = current?.[field]
    if (current === undefined || !Array.isArray(items)) return
    this.#store('replaced', recordOf(this.declaration, id, { ...current, [field]: items.filter((item) => item !== value) }), unit)
  }

  clearNow (id: RecordId, field: string, unit?: MemoryUnit): void {
    const current = this.#records.get(id)
    if (current === undefined) return
    const input: Record<string, FieldData | undefined> = { ...current }
    delete input[field]
    this.#store('replaced', recordOf(this.declaration, id, input), unit)
  }

  async query (query: RecordQuery): Promise<StoredRecord[]> {
    return await this.#queries.query(query, await this.#references?.through(query))
  }

  async aggregate (query: AggregateQuery): Promise<AggregateRow[]> {
    // The same rows a GROUP BY gives, computed over the walk of the matching records.
    return await aggregateRecords(this.#queries.batches({ ...query.filter, sort: [] }), query)
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
    const { staged, count } = await this.stageImport(source)
    const outcome = this.applyImport(staged)
    onApplied?.(outcome)
    return count
  }

  /** Reads an import's records (the last line of an id wins), storing none yet. */
  async stageImport (source: AsyncIterable<readonly StoredRecord[]>): Promise<{ staged: ReadonlyMap<RecordId, StoredRecord>, count: number }> {
    const staged = new Map<RecordId, StoredRecord>()
    let count = 0
    for await (const batch of source) {
      for (const r of batch) staged.set(r.id, recordOf(this.declaration, r.id, r))
      count += batch.length
    }
    return { staged, count }
  }

  /**
   * Stores staged records in id order, a change each, after checking them
   * all (unique keys, references): all or nothing. Inside a unit (an import
   * of several collections) every one is undone with the unit, and its
   * changes wait for the unit's commit.
   */
  applyImport (staged: ReadonlyMap<RecordId, StoredRecord>, unit?: MemoryUnit): ImportOutcome {
    this.#checkAll(staged)
    let replaced = 0
    for (const r of [...staged.values()].sort(byId)) {
      const held = this.#records.has(r.id)
      if (held) replaced++
      this.#store(held ? 'replaced' : 'created', r, unit)
      this.#issued(r.id)
    }
    return { created: staged.size - replaced, replaced }
  }

  /**
   * The records a changed collection takes over from its table before the
   * change (./schema.ts), each as the new declaration reads it: checked as
   * an import's (unique keys, references), stored in id order, and announced
   * nowhere. A change of a collection is no write of its records, on every
   * store (docs/decisions.md, "Defaults and the change feed").
   */
  takeOver (records: readonly StoredRecord[]): void {
    const staged = new Map<RecordId, StoredRecord>()
    for (const r of records) staged.set(r.id, recordOf(this.declaration, r.id, r))
    this.#checkAll(staged)
    this.#writable()
    for (const r of [...staged.values()].sort(byId)) {
      if (!this.#unique.empty) this.#unique.move(undefined, r)
      this.#records.set(r.id, r)
      this.#issued(r.id)
    }
  }

  /** Unique keys and references of records to store together, checked before any is stored: all or nothing. */
  #checkAll (staged: ReadonlyMap<RecordId, StoredRecord>): void {
    this.#unique.checkAll(staged)
    // References are checked as a write's are.
    for (const r of staged.values()) this.#references?.check(this.declaration, r)
  }

  /** Stores a record that #unique.check passed (a create's and a put's; an import's checked as a whole). */
  #store (kind: 'created' | 'replaced', record: StoredRecord, unit?: MemoryUnit): void {
    this.#writable()
    const before = this.#records.get(record.id)
    if (!this.#unique.empty) this.#unique.move(before, record)
    if (unit !== undefined) {
      unit.undo(() => {
        if (before === undefined) this.#records.delete(record.id)
        else this.#records.set(record.id, before)
        if (!this.#unique.empty) this.#unique.move(record, before)
      })
      unit.changed(this.declaration.name, kind, record.id, record)
      this.#records.set(record.id, record)
      return
    }
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
