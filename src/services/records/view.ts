import type { DeleteResult, ImportOutcome, KeyedWrite, RecordFilter, RecordQuery, RecordStore, StoredRecord, StoreRevision, WriteCondition } from '../../domain/index.js'

/**
 * A service's typed view of its collection's record store: the records as
 * the service's own type `R` (its fields, its id type). The engine hands
 * over StoredRecords shaped by the declaration, so `R` only narrows what
 * they are (one `as`, a subtype of StoredRecord), never converts them. A built-in service derives its view from this
 * class (src/services/students/records.ts, src/services/addresses/records.ts).
 */
export abstract class RecordView<R extends StoredRecord> {
  /** Present when the record store has one (the memory store): a plain field, read by isRevisioned. */
  readonly revision?: StoreRevision
  readonly keptWrite?: RecordStore['keptWrite']

  constructor (protected readonly records: RecordStore) {
    if (records.revision !== undefined) this.revision = records.revision
    if (records.keptWrite !== undefined) this.keptWrite = records.keptWrite.bind(records)
  }

  async query (query: RecordQuery): Promise<R[]> {
    return await this.records.query(query) as R[]
  }

  async count (filter: RecordFilter): Promise<number> {
    return await this.records.count(filter)
  }

  batches (query: RecordQuery): AsyncIterable<readonly R[]> {
    return this.records.batches(query) as AsyncIterable<readonly R[]>
  }

  async importAll (source: AsyncIterable<readonly R[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number> {
    return await this.records.importAll(source, onApplied)
  }

  async delete (id: R['id'], condition?: WriteCondition<R>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    return await this.records.delete(id, condition, keyed)
  }
}

/** A keyed write of a view, as a keyed write of the record store: the answer is built from the view's result. */
export function keyedAs<V, S> (keyed: KeyedWrite<V> | undefined, view: (result: S) => V): KeyedWrite<S> | undefined {
  if (keyed === undefined) return undefined
  return { key: keyed.key, fingerprint: keyed.fingerprint, answer: (result) => keyed.answer(view(result)) }
}
