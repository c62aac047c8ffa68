import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { Statement } from 'better-sqlite3'
import {
  conditionHolds, DanglingReferenceError, DELETED, UndeclaredFieldError, fold, mergePatch, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, recordOf, sameRecord,
  type CollectionDeclaration, type CreateResult, type DeleteResult, type FieldData, type ImportOutcome, type KeptWrite, type KeyedWrite, type RecordFilter, type SortKey,
  type RecordId, type RecordInput, type RecordQuery, type RecordStore, type RecordWrites, type StoredRecord, type WriteCondition, type WriteResult
} from '../../domain/index.js'
import type { AggregateQuery, AggregateRow } from '../../domain/index.js'
import { rethrow } from './errors.js'
import { duplicateOf } from './unique.js'
import type { SqliteKeptWrites } from './kept-writes.js'
import type { GroupCommit } from './group-commit.js'
import { importStaged, type ImportPart, type ImportPlan } from './import.js'
import { SqliteQueries } from './query.js'
import { LoopShare, ReadBudget } from '../read-budget.js'
import { layoutOf, pushWrittenValues, quoted, sqlValue, writtenValues, type TableLayout } from './layout.js'
import { RowsInsert } from './rows-insert.js'
import { boundValue } from '../json-columns.js'
import type { TableReferences } from '../references.js'
import { compileWithValues, type SqlTable } from '../sql-query.js'
import { SQLITE_DIALECT } from './query.js'

/** Most values bound in one statement of getMany and withValues (SQLite's default limit is 32 766). */
const MAX_BOUND = 10_000

/** The largest 64-bit id: 2^63 − 1, the top of SQLite's INTEGER. */
const MAX_INT64 = 9223372036854775807n

interface Counter {
  n: number | bigint
  next: number | bigint
}

/** What the collections of one file share about reading: turns of the event loop, and the budget of one read. */
export interface SqliteReads {
  loop: LoopShare
  budget: ReadBudget
}

/**
 * The records of one collection in its SQLite table (see ./layout.ts), for
 * any declaration. Every write runs in its own savepoint inside a group's
 * BEGIN IMMEDIATE transaction (./group-commit.ts), which holds the file's
 * write lock across processes, so the id rule, the precondition, the record,
 * its change (written by the table's triggers) and a keyed answer commit
 * together, even with several processes on one file, and a write is answered
 * once its group committed.
 * The record count and the next id live in the collection's rqs_counters row,
 * updated in the same transaction, so a create never counts rows. Statements
 * are prepared once per collection.
 */
export class SqliteRecordStore implements RecordStore {
  readonly declaration: CollectionDeclaration
  readonly #layout: TableLayout
  readonly #db: Database.Database
  /** Shared by the collections of one file: their reads take turns with other requests (../read-budget.ts). */
  readonly #loop: LoopShare
  readonly #kept: SqliteKeptWrites
  readonly #group: GroupCommit
  readonly #get: Statement<[RecordId], Record<string, unknown>>
  readonly #queries: SqliteQueries<string, StoredRecord>
  /** The tables its reference fields name (filters through references; the reference check of an import). */
  readonly #targets: Readonly<Record<string, SqlTable<string>>> | undefined
  /** The query compiler's view of the table, with its targets. */
  readonly #table: SqlTable<string>
  readonly #create: (input: RecordInput, keyed: KeyedWrite<CreateResult> | undefined) => CreateResult
  readonly #createMany: (inputs: readonly RecordInput[], keyed: KeyedWrite<CreateResult[]> | undefined) => CreateResult[]
  readonly #put: (id: RecordId, input: RecordInput, condition: WriteCondition<StoredRecord>, keyed: KeyedWrite<WriteResult> | undefined) => WriteResult
  readonly #updateWhere: (filter: RecordFilter, patch: Readonly<Record<string, unknown>>, keyed: KeyedWrite<number> | undefined) => number
  readonly #deleteWhere: (filter: RecordFilter, keyed: KeyedWrite<number> | undefined) => number
  readonly #remove: (id: RecordId, condition: WriteCondition<StoredRecord>, keyed: KeyedWrite<DeleteResult> | undefined) => DeleteResult

  /** `references`: the references between the collections of this file (x-references), checked inside each write's transaction. */
  constructor (db: Database.Database, declaration: CollectionDeclaration, kept: SqliteKeptWrites, group: GroupCommit, references?: TableReferences, targets?: Record<string, SqlTable<string>>, reads: SqliteReads = { loop: new LoopShare(), budget: ReadBudget.NONE }) {
    this.declaration = declaration
    this.#loop = reads.loop
    this.#db = db
    this.#group = group
    this.#kept = kept
    const layout = this.#layout = layoutOf(declaration)
    const { fields, bigintIds } = layout
    const name = declaration.name
    const table = quoted(declaration.table)
    this.#targets = targets
    this.#table = targets === undefined ? layout.sql : { ...layout.sql, targets }
    this.#queries = new SqliteQueries(db, this.#table, bigintIds, layout.shape, reads.budget)
    this.#get = db.prepare<[RecordId], Record<string, unknown>>(`SELECT ${layout.sql.select} FROM ${table} WHERE id = ?`).safeIntegers(bigintIds)

    const counter = db.prepare<[string], Counter>('SELECT n, next FROM rqs_counters WHERE collection = ?').safeIntegers(bigintIds)
    // One statement for a create's bookkeeping: the count, and the next id past the one issued.
    const issued = db.prepare<[number, RecordId, string]>('UPDATE rqs_counters SET n = n + ?, next = max(next, ?) WHERE collection = ?')
    const addToCount = db.prepare<[number, string]>('UPDATE rqs_counters SET n = n + ? WHERE collection = ?')
    const written = layout.writtenColumns
    const insertRow = db.prepare(`INSERT INTO ${table} (id${written.map((c) => `, ${c}`).join('')})
      VALUES (?${written.map(() => ', ?').join('')}) ON CONFLICT (id) DO NOTHING`)
    const updateAll = updateStatement(db, layout, [])
    // An update by id leaves the declaration's keptOnUpdate fields as stored.
    const updateKept = declaration.keptOnUpdate.length === 0 ? updateAll : updateStatement(db, layout, declaration.keptOnUpdate)
    const updatedFields = fields.filter((f) => !declaration.keptOnUpdate.includes(f.name))
    const insert = (id: RecordId, input: RecordInput): boolean => insertRow.run(id, ...writtenValues(fields, input)).changes === 1
    const remove = db.prepare<[RecordId]>(`DELETE FROM ${table} WHERE id = ?`)

    const createOne = (input: RecordInput): CreateResult => {
      references?.check(declaration, input)
      switch (declaration.ids) {
        case 'count':
        case 'sequence': {
          const { n, next } = counter.get(name) as Counter
          const id = declaration.ids === 'count' ? declaration.firstId + Number(n) : Number(next)
          // A record already under the id is replaced and the count stays (the spec's rule; sequence after a PUT).
          const created = insert(id, input)
          if (!created) updateAll.run(...writtenValues(fields, input), id)
          issued.run(created ? 1 : 0, id + 1, name)
          return { outcome: created ? 'created' : 'replaced', record: recordOf(declaration, id, input) }
        }
        case 'int64': {
          // The first id at or after `next` that no record (a PUT's) holds.
          for (let id = BigInt((counter.get(name) as Counter).next); ; id++) {
            if (id > MAX_INT64) throw new RangeError(`${name} ids are exhausted`)
            if (insert(id, input)) {
              issued.run(1, id + 1n, name)
              return { outcome: 'created', record: recordOf(declaration, id, input) }
            }
          }
        }
        case 'uuid': {
          const id = randomUUID()
          const created = insert(id, input)
          // A UUID already held is all but impossible; if it happens, it is replaced as under `count`.
          if (created) addToCount.run(1, name)
          else updateAll.run(...writtenValues(fields, input), id)
          return { outcome: created ? 'created' : 'replaced', record: recordOf(declaration, id, input) }
        }
      }
    }
    this.#create = db.transaction((input: RecordInput, keyed: KeyedWrite<CreateResult> | undefined) => kept.run(keyed, () => createOne(input)))

    // The ids creates one at a time would draw while no record holds them: a run on from the counter (undefined: past the last int64).
    const freshIds = (count: number): RecordId[] | undefined => {
      if (declaration.ids === 'uuid') return Array.from({ length: count }, () => randomUUID())
      const { n, next } = counter.get(name) as Counter
      if (declaration.ids === 'int64') {
        const first = BigInt(next)
        if (first + BigInt(count - 1) > MAX_INT64) return undefined
        return Array.from({ length: count }, (_, i) => first + BigInt(i))
      }
      const first = declaration.ids === 'count' ? declaration.firstId + Number(n) : Number(next)
      return Array.from({ length: count }, (_, i) => first + i)
    }
    const insertRows = new RowsInsert(db, table, ['id', ...written])
    /**
     * A bulk create as creates one at a time would make it, in bulk: the ids
     * drawn as a run, the rows inserted many to a statement, the counter moved
     * once. From a record whose id is held on (a PUT's), one at a time, as the
     * id rule replaces or skips it. References are checked record by record
     * (a record may name one made before it in the same request).
     */
    const createAll = (inputs: readonly RecordInput[]): CreateResult[] => {
      const ids = declaration.references === undefined && inputs.length > 0 ? freshIds(inputs.length) : undefined
      if (ids === undefined) return inputs.map(createOne)
      const values: unknown[] = []
      for (let i = 0; i < inputs.length; i++) {
        values.push(ids[i])
        pushWrittenValues(values, fields, inputs[i] as RecordInput)
      }
      const inserted = insertRows.run(values)
      if (inserted > 0) {
        const last = ids[inserted - 1] as RecordId
        if (declaration.ids === 'uuid') addToCount.run(inserted, name)
        else issued.run(inserted, typeof last === 'bigint' ? last + 1n : (last as number) + 1, name)
      }
      const results: CreateResult[] = []
      for (let i = 0; i < inserted; i++) results.push({ outcome: 'created', record: recordOf(declaration, ids[i] as RecordId, inputs[i] as RecordInput) })
      for (let i = inserted; i < inputs.length; i++) results.push(createOne(inputs[i] as RecordInput))
      return results
    }
    // Every record of a bulk create in one savepoint: one failure rolls them all back.
    this.#createMany = db.transaction((inputs: readonly RecordInput[], keyed: KeyedWrite<CreateResult[]> | undefined) => kept.run(keyed, () => createAll(inputs)))

    const put = db.transaction((id: RecordId, input: RecordInput, condition: WriteCondition<StoredRecord>, keyed: KeyedWrite<WriteResult> | undefined) => kept.run(keyed, (): WriteResult => {
      const current = this.#read(id)
      if (current === undefined && !declaration.putCreates) return NOT_FOUND
      if (!conditionHolds(condition, current, sameRecord)) return PRECONDITION_FAILED
      references?.check(declaration, input)
      if (current === undefined) {
        insert(id, input)
        addToCount.run(1, name)
        return { outcome: 'created', record: recordOf(declaration, id, input) }
      }
      updateKept.run(...writtenValues(updatedFields, input), id)
      return { outcome: 'replaced', record: recordOf(declaration, id, keptFields(declaration, current, input)) }
    }))
    this.#put = put

    const del = db.transaction((id: RecordId, condition: WriteCondition<StoredRecord>, keyed: KeyedWrite<DeleteResult> | undefined) => kept.run(keyed, (): DeleteResult => {
      const current = this.#read(id)
      if (current === undefined) return NOT_FOUND
      if (!conditionHolds(condition, current, sameRecord)) return PRECONDITION_FAILED
      references?.deleting(name, id)
      remove.run(id)
      addToCount.run(-1, name)
      return DELETED
    }))
    this.#remove = del

    // Filtered writes: the rows the filter selects, read and written in one savepoint.
    const selected = (filter: RecordFilter): StoredRecord[] => this.#queries.query({ ...filter, sort: [] })
    this.#updateWhere = db.transaction((filter: RecordFilter, patch: Readonly<Record<string, unknown>>, keyed: KeyedWrite<number> | undefined) => kept.run(keyed, () => {
      const records = selected(filter)
      for (const current of records) {
        const merged = mergePatch(declaration, current, patch) as RecordInput
        references?.check(declaration, merged)
        updateKept.run(...writtenValues(updatedFields, merged), current.id)
      }
      return records.length
    }))
    this.#deleteWhere = db.transaction((filter: RecordFilter, keyed: KeyedWrite<number> | undefined) => kept.run(keyed, () => {
      const records = selected(filter)
      for (const current of records) {
        references?.deleting(name, current.id)
        remove.run(current.id)
      }
      addToCount.run(-records.length, name)
      return records.length
    }))
  }

  /** After an import: the first reference naming no record, if any (checked inside the import's transaction). */
  #danglingReference (): DanglingReferenceError | undefined {
    return this.#targets === undefined ? undefined : danglingReferenceOf(this.#db, this.#layout, this.#targets)
  }

  #read (id: RecordId): StoredRecord | undefined {
    const row = this.#get.get(id)
    if (row === undefined) return undefined
    return this.#layout.shape === undefined ? row as StoredRecord : this.#layout.shape(row)
  }

  async get (id: RecordId): Promise<StoredRecord | undefined> {
    try { return this.#read(id) } catch (err) { return rethrow(err) }
  }

  /** One statement for every id (chunked under SQLite's limit of bound parameters). */
  async getMany (ids: readonly RecordId[]): Promise<StoredRecord[]> {
    const { select, name } = this.#layout.sql
    const records: StoredRecord[] = []
    try {
      for (let i = 0; i < ids.length; i += MAX_BOUND) {
        const chunk = ids.slice(i, i + MAX_BOUND)
        const rows = this.#db.prepare(`SELECT ${select} FROM ${name} WHERE id IN (${chunk.map(() => '?').join(', ')})`).safeIntegers(this.#layout.bigintIds).all(...chunk) as Array<Record<string, unknown>>
        for (const row of rows) records.push(this.#shaped(row))
      }
    } catch (err) { return rethrow(err) }
    return records
  }

  async withValues (field: string, values: readonly FieldData[], perValue: number, filter?: RecordFilter, sort?: readonly SortKey[]): Promise<StoredRecord[]> {
    if (field === 'id' || !Object.hasOwn(this.declaration.fields, field)) throw new UndeclaredFieldError(this.declaration.name, field)
    const records: StoredRecord[] = []
    try {
      for (let i = 0; i < values.length; i += MAX_BOUND) {
        const { text, values: bound } = compileWithValues(this.#table, SQLITE_DIALECT, field, values.slice(i, i + MAX_BOUND), perValue, filter, undefined, sort)
        // The filter's values too are bound as SQLite keeps them (a boolean as 0 or 1).
        const rows = this.#db.prepare(text).safeIntegers(this.#layout.bigintIds).all(...bound.map(sqlValue)) as Array<Record<string, unknown>>
        for (const row of rows) records.push(this.#shaped(row))
      }
    } catch (err) { return rethrow(err) }
    return records
  }

  #shaped (row: Record<string, unknown>): StoredRecord {
    return this.#layout.shape === undefined ? row as StoredRecord : this.#layout.shape(row)
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    try { return this.#kept.find(key) } catch (err) { return rethrow(err) }
  }

  async create (input: RecordInput, keyed?: KeyedWrite<CreateResult>): Promise<CreateResult> {
    try { return await this.#group.run(() => this.#create(input, keyed)) } catch (err) { return rethrow(duplicateOf(this.#db, this.declaration, err, input) ?? err) }
  }

  async createMany (inputs: readonly RecordInput[], keyed?: KeyedWrite<CreateResult[]>): Promise<CreateResult[]> {
    try { return await this.#group.run(() => this.#createMany(inputs, keyed)) } catch (err) { return rethrow(duplicateOf(this.#db, this.declaration, err, undefined) ?? err) }
  }

  async put (id: RecordId, input: RecordInput, condition: WriteCondition<StoredRecord> = NO_CONDITION, keyed?: KeyedWrite<WriteResult>): Promise<WriteResult> {
    try { return await this.#group.run(() => this.#put(id, input, condition, keyed)) } catch (err) { return rethrow(duplicateOf(this.#db, this.declaration, err, input, id) ?? err) }
  }

  async delete (id: RecordId, condition: WriteCondition<StoredRecord> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    try { return await this.#group.run(() => this.#remove(id, condition, keyed)) } catch (err) { return rethrow(err) }
  }

  /**
   * This collection inside a unit of work, on the connection whose
   * transaction the unit holds: the same statements, each write in its own
   * savepoint, committed or rolled back with the unit.
   */
  writesIn (open: () => void): RecordWrites {
    // A duplicate key is named as a single write names it (the holder may be the unit's own write).
    const inUnit = async <R>(run: () => R, input?: RecordInput, own?: RecordId): Promise<R> => {
      open()
      try { return run() } catch (err) { return rethrow(duplicateOf(this.#db, this.declaration, err, input, own) ?? err) }
    }
    return {
      declaration: this.declaration,
      get: async (id) => await inUnit(() => this.#read(id)),
      create: async (input) => await inUnit(() => this.#create(input, undefined), input),
      put: async (id, input, condition = NO_CONDITION) => await inUnit(() => this.#put(id, input, condition, undefined), input, id),
      delete: async (id, condition = NO_CONDITION) => await inUnit(() => this.#remove(id, condition, undefined))
    }
  }

  async updateWhere (filter: RecordFilter, patch: Readonly<Record<string, unknown>>, keyed?: KeyedWrite<number>): Promise<number> {
    try { return await this.#group.run(() => this.#updateWhere(filter, patch, keyed)) } catch (err) { return rethrow(duplicateOf(this.#db, this.declaration, err, undefined) ?? err) }
  }

  async deleteWhere (filter: RecordFilter, keyed?: KeyedWrite<number>): Promise<number> {
    try { return await this.#group.run(() => this.#deleteWhere(filter, keyed)) } catch (err) { return rethrow(err) }
  }

  // Each read may first let other requests run (reads never hold the loop for long: ../read-budget.ts, LoopShare).
  async query (query: RecordQuery): Promise<StoredRecord[]> {
    const turn = this.#loop.due()
    if (turn !== undefined) await turn
    return this.#queries.query(query)
  }

  async aggregate (query: AggregateQuery): Promise<AggregateRow[]> {
    const turn = this.#loop.due()
    if (turn !== undefined) await turn
    return this.#queries.aggregate(query)
  }

  async count (filter: RecordFilter): Promise<number> {
    const turn = this.#loop.due()
    if (turn !== undefined) await turn
    return this.#queries.count(filter)
  }

  batches (query: RecordQuery): AsyncIterable<StoredRecord[]> {
    return this.#queries.batches(query)
  }

  /**
   * Stages the file, then upserts whole records by id in one transaction (see
   * importStaged) and brings the counter row in step: n is the records held;
   * `count` and `sequence` go on past the highest id imported; `int64` moves
   * its next id past the run of taken ids it points into.
   */
  async importAll (source: AsyncIterable<readonly StoredRecord[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number> {
    try {
      return await importStaged(this.#db, this.#importPlan(), source, onApplied)
    } catch (err) {
      throw this.#importRefusal(err)
    }
  }

  /** This collection's part of an import of several (RecordStores.importAllOf): its plan and its refusals. */
  importPart (source: AsyncIterable<readonly StoredRecord[]>, onApplied?: (outcome: ImportOutcome) => void): ImportPart<StoredRecord> {
    return { plan: this.#importPlan(), source, ...(onApplied === undefined ? {} : { onApplied }), refusal: (err) => this.#importRefusal(err) }
  }

  #importRefusal (err: unknown): unknown {
    return duplicateOf(this.#db, this.declaration, err, undefined) ?? err
  }

  #importPlan (): ImportPlan<StoredRecord> {
    const { declaration, fields } = this.#layout
    const table = quoted(declaration.table)
    const columns: Array<readonly [string, (r: StoredRecord) => unknown]> = [['id', (r) => r.id]]
    for (const f of fields) columns.push([quoted(f.column), (r) => sqlValue(boundValue(f.type, r[f.name]))])
    for (const f of fields) {
      if (f.folded !== undefined) columns.push([quoted(f.folded), (r) => typeof r[f.name] === 'string' ? fold(r[f.name] as string) : null])
    }
    return {
      // Unquoted: importStaged also looks the table up in sqlite_master (rqs's table names are plain identifiers).
      table: declaration.table,
      columns,
      finish: (staged) => {
        this.#db.prepare(`UPDATE rqs_counters SET n = (SELECT count(*) FROM ${table}) WHERE collection = ?`).run(declaration.name)
        if (declaration.ids === 'count' || declaration.ids === 'sequence') {
          this.#db.prepare(`UPDATE rqs_counters SET next = max(next, coalesce((SELECT max(id) + 1 FROM ${staged}), next)) WHERE collection = ?`).run(declaration.name)
        }
        if (declaration.ids === 'int64') this.#db.prepare(skipTakenIds(table)).run(declaration.name)
        // References are checked as a write's are: one naming no record undoes the whole import.
        const dangling = this.#danglingReference()
        if (dangling !== undefined) throw dangling
      }
    }
  }
}

/** The first record whose reference names no record of its target, as the write's refusal. */
function danglingReferenceOf (db: Database.Database, layout: TableLayout, targets: Readonly<Record<string, SqlTable<string>>>): DanglingReferenceError | undefined {
  const { declaration } = layout
  for (const [field, reference] of Object.entries(declaration.references ?? {})) {
    const column = layout.sql.columns[field]
    const target = targets[field]
    if (column === undefined || target === undefined) continue
    // A list of references (JSON text): each of its items is looked for.
    const row = db.prepare<[], { value: FieldData }>(reference.many === true
      ? `SELECT i.value AS value FROM ${quoted(declaration.table)} s, json_each(s.${column}) i
      WHERE NOT EXISTS (SELECT 1 FROM ${target.name} t WHERE t.id = i.value) LIMIT 1`
      : `SELECT s.${column} AS value FROM ${quoted(declaration.table)} s
      WHERE s.${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${target.name} t WHERE t.id = s.${column}) LIMIT 1`).get()
    if (row !== undefined) return new DanglingReferenceError(declaration.name, field, row.value, reference.collection)
  }
  return undefined
}

/** UPDATE of every written column but those of the `kept` fields, by id (the last parameter). */
function updateStatement (db: Database.Database, layout: TableLayout, kept: readonly string[]): Statement {
  const columns: string[] = []
  const fields = layout.fields.filter((f) => !kept.includes(f.name))
  for (const f of fields) columns.push(quoted(f.column))
  for (const f of fields) if (f.folded !== undefined) columns.push(quoted(f.folded))
  // No columns to write (every field kept): a no-op that still names the row.
  const set = columns.length === 0 ? 'id = id' : columns.map((c) => `${c} = ?`).join(', ')
  return db.prepare(`UPDATE ${quoted(layout.table)} SET ${set} WHERE id = ?`)
}

/**
 * Moves an int64 collection's next id to the first id at or after it that no
 * record holds: the end of the run of taken ids it points into, found from
 * the primary key in one statement instead of one failed insert per id.
 */
function skipTakenIds (table: string): string {
  return `UPDATE rqs_counters SET next = (
    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM ${table} WHERE id = c.next) THEN c.next
      ELSE coalesce((SELECT min(a.id) + 1 FROM ${table} a
        WHERE a.id >= c.next AND a.id < ${MAX_INT64} AND NOT EXISTS (SELECT 1 FROM ${table} b WHERE b.id = a.id + 1)), c.next) END
    FROM rqs_counters c WHERE c.collection = rqs_counters.collection) WHERE collection = ?`
}

/** An update's fields: the write's, except those the declaration keeps from the stored record. */
function keptFields (declaration: CollectionDeclaration, current: StoredRecord, input: RecordInput): RecordInput {
  if (declaration.keptOnUpdate.length === 0) return input
  const merged: Record<string, unknown> = { ...input }
  for (const field of declaration.keptOnUpdate) merged[field] = current[field]
  return merged as RecordInput
}

