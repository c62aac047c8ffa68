import { createHash } from 'node:crypto'
import { randomUUID } from 'node:crypto'
import { boundValue } from '../json-columns.js'
import type { Pool, PoolClient, QueryConfig } from 'pg'
import {
  conditionHolds, DELETED, fold, mergePatch, NO_CONDITION, NOT_FOUND, PRECONDITION_FAILED, recordOf, sameRecord, SchemaChangedError, UndeclaredFieldError,
  type CollectionDeclaration, type CreateResult, type DeleteResult, type FieldData, type ImportOutcome, type KeptWrite, type KeyedWrite, type RecordFilter, type SortKey, type RecordId,
  type RecordInput, type RecordQuery, type RecordStore, type RecordWrites, type StoredRecord, type WriteCondition, type WriteResult
} from '../../domain/index.js'
import type { AggregateQuery, AggregateRow } from '../../domain/index.js'
import type { PostgresKeptWrites } from './kept-writes.js'
import { ClientWrites, type PostgresWrites, type Writes } from './transaction.js'
import { PostgresQueries } from './query.js'
import { importStaged, type ImportPart, type ImportPlan } from './import.js'
import { BatchedGets } from './batched-gets.js'
import { changedJson } from './registry.js'
import { layoutOf, literal, type TableLayout } from './layout.js'
import { duplicateOf } from './unique.js'
import type { PostgresReferences } from './references.js'
import { rethrow } from './errors.js'
import { readQuery } from './read-retry.js'
import { compileWithValues, type SqlTable } from '../sql-query.js'
import { POSTGRES_DIALECT } from './query.js'
import { schemaGuard } from './schema-follow.js'
import { ReadBudget } from '../read-budget.js'

type Row = Record<string, unknown>

/** The largest int64 id: 2^63 − 1, the top of SQL's bigint. */
const MAX_INT64 = 9223372036854775807n
interface Statement { name: string, text: string }

/** The statements of one collection, built once from its layout (named: parsed and planned once per connection). */
interface Statements {
  /** One round trip: the generated function (count, sequence, int64) or a plain INSERT (uuid). */
  create: Statement
  /** A bulk create in one statement: the ids ($1), then arrays of values, one per column, in order; each row's change appended by the statement. */
  createMany: Statement
  /** The counter row of count and sequence ids, locked: records held and the next id. */
  counter: Statement
  /** Whether any record holds an id in [$1, $2) (a count run meeting a hole). */
  heldIn: Statement
  /** The counter row moved on after a bulk create: $1 records more, the next id at least $2. */
  countedMany: Statement
  /** Filtered writes: an UPDATE from arrays (ids, then each updated column's values), a DELETE of an array of ids, the count down by $1. */
  updateMany: Statement
  deleteMany: Statement
  uncountedBy: Statement
  getMany: Statement
  /** A write by id that replaces only (RETURNING the record). */
  update: Statement
  /** A write by id that creates or replaces (putCreates), RETURNING the record and whether it was inserted. */
  upsert: Statement
  /** Inserts unless the id is held (a conditional create). */
  insert: Statement
  lock: Statement
  lockCounter: Statement
  /** count/sequence: the function that deletes and counts down; else a plain DELETE. */
  delete: Statement
  remove: Statement
  counted: Statement
  uncounted: Statement
}

/**
 * The records of any declared collection in one PostgreSQL table (see
 * ./layout.ts and ./registry.ts). Unconditional writes without an
 * Idempotency-Key are one autocommit statement (a generated function where
 * the id rule needs the counter row); conditional and keyed writes run in a
 * transaction that locks the row (and first the counter row, as the
 * functions do, so they never deadlock) and decides with conditionHolds.
 */
export class PostgresRecordStore implements RecordStore {
  readonly declaration: CollectionDeclaration
  readonly #layout: TableLayout
  readonly #pool: Pool
  readonly #writes: PostgresWrites
  readonly #kept: PostgresKeptWrites
  /** Built again when the collection is pinned at a version of its declaration (a guard in every write). */
  #s: Statements
  readonly #queries: PostgresQueries<string, Row, StoredRecord>
  readonly #gets: BatchedGets<RecordId, Row, StoredRecord>
  /** The SEQUENCE of an int64 collection (from the registry). */
  readonly #sequence: string | null
  /** Indexes into #values of the columns an update writes (not those of keptOnUpdate fields). */
  readonly #updated: number[]
  /** The query compiler's view of the table, with the tables its references name. */
  readonly #table: SqlTable<string>
  /** The foreign keys of x-references, whose violations become the domain's refusals. */
  readonly #references: PostgresReferences | undefined
  /** Told when a write met a newer declaration than this store's: the instance follows the change. */
  readonly #stale: (() => void) | undefined

  /** `sequence`: the SEQUENCE of an int64 collection, as the registry names it. */
  /** `targets`: the tables its reference fields name (filters through references). */
  /** `stale`: told when a write met a newer declaration than this store's. */
  constructor (pool: Pool, writes: PostgresWrites, kept: PostgresKeptWrites, declaration: CollectionDeclaration, sequence: string | null, references?: PostgresReferences, targets?: Record<string, SqlTable<string>>, stale?: () => void, budget = ReadBudget.NONE) {
    this.declaration = declaration
    const layout = this.#layout = layoutOf(declaration)
    this.#pool = pool
    this.#writes = writes
    this.#kept = kept
    this.#s = statements(layout)
    this.#table = targets === undefined ? layout.sql : { ...layout.sql, targets }
    this.#queries = new PostgresQueries(pool, this.#table, layout.toRecord, budget)
    this.#gets = new BatchedGets(pool, { statement: this.#s.getMany, idOf: (row) => layout.idOf(row.id), toRecord: layout.toRecord })
    this.#sequence = sequence
    const keptColumns = new Set(declaration.keptOnUpdate.flatMap((name) => {
      const f = layout.fields.find((field) => field.name === name)
      return f === undefined ? [] : [f.column, ...(f.folded === undefined ? [] : [f.folded])]
    }))
    this.#updated = layout.columns.flatMap((c, i) => keptColumns.has(c) ? [] : [i])
    // Kept even without foreign keys now: a collection created later may reference this one (its refusals then come here).
    this.#references = references
    this.#stale = stale
  }

  /**
   * From now on every write holds only while the database's declaration of
   * this collection is at `version` (a one-time filter in its own statement,
   * ./schema-follow.ts): a write made with an older one is refused.
   */
  pin (version: number, until?: number): void {
    this.#s = statements(this.#layout, version, until)
  }

  async get (id: RecordId): Promise<StoredRecord | undefined> {
    return await this.#gets.get(id)
  }

  /**
   * This collection inside a unit of work, on `client` in its open
   * transaction: the same statements through ClientWrites (a conditional
   * write's own transaction is then just its work), reads included, so the
   * unit sees its own writes.
   */
  writesIn (client: PoolClient): RecordWrites {
    const writes = new ClientWrites(client)
    return {
      declaration: this.declaration,
      get: async (id) => {
        const row = (await writes.statement<Row>({ ...this.#s.getMany, values: [[id]] })).rows[0]
        return row === undefined ? undefined : this.#layout.toRecord(row)
      },
      // A duplicate key or a foreign key aborts the unit's transaction; a duplicate's holder is looked up on another connection (committed records only).
      create: async (input) => {
        try { return await this.#create(writes, input) } catch (err) { throw await this.#refusal(err, input) }
      },
      put: async (id, input, condition = NO_CONDITION) => {
        try { return await this.#put(writes, id, input, condition) } catch (err) { throw await this.#refusal(err, input, id) }
      },
      delete: async (id, condition = NO_CONDITION) => {
        try { return await this.#delete(writes, id, condition) } catch (err) { throw await this.#refusal(err) }
      }
    }
  }

  async getMany (ids: readonly RecordId[]): Promise<StoredRecord[]> {
    // Joined with every read by id issued in the same I/O round (the other pages expanded meanwhile too): one statement for all (./batched-gets.ts).
    return await this.#gets.getMany(ids)
  }

  async withValues (field: string, values: readonly FieldData[], perValue: number, filter?: RecordFilter, sort?: readonly SortKey[]): Promise<StoredRecord[]> {
    const f = this.#layout.fields.find((candidate) => candidate.name === field)
    if (f === undefined) throw new UndeclaredFieldError(this.declaration.name, field)
    if (values.length === 0) return []
    const { text, values: bound } = compileWithValues(this.#table, POSTGRES_DIALECT, field, values, perValue, filter, f.sqlType, sort)
    try {
      return (await readQuery<Row>(this.#pool, { text, values: bound })).rows.map(this.#layout.toRecord)
    } catch (err) { return rethrow(err) }
  }

  async keptWrite (key: string): Promise<KeptWrite | undefined> {
    return await this.#kept.find(key)
  }

  async create (input: RecordInput, keyed?: KeyedWrite<CreateResult>): Promise<CreateResult> {
    try {
      return await this.#create(this.#writes, input, keyed)
    } catch (err) {
      throw await this.#refusal(err, input)
    }
  }

  async put (id: RecordId, input: RecordInput, condition: WriteCondition<StoredRecord> = NO_CONDITION, keyed?: KeyedWrite<WriteResult>): Promise<WriteResult> {
    try {
      return await this.#put(this.#writes, id, input, condition, keyed)
    } catch (err) {
      throw await this.#refusal(err, input, id)
    }
  }

  async delete (id: RecordId, condition: WriteCondition<StoredRecord> = NO_CONDITION, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    try { return await this.#delete(this.#writes, id, condition, keyed) } catch (err) { throw await this.#refusal(err) }
  }

  /** A unique index's or a foreign key's violation as the refusal it stands for (naming what it can); any other error as it is. */
  async #refusal (err: unknown, input?: RecordInput, own?: RecordId): Promise<unknown> {
    if (err instanceof SchemaChangedError) {
      this.#stale?.()
      return err.collection === undefined ? new SchemaChangedError(this.declaration.name, undefined, { cause: err.cause }) : err
    }
    return await duplicateOf(this.#pool, this.#layout, err, input, own) ??
      (this.#references === undefined ? undefined : await this.#references.refusal(err)) ?? err
  }

  /** The writes, through the pool (one statement or a transaction of their own) or a unit's connection. */
  async #create (writes: Writes, input: RecordInput, keyed?: KeyedWrite<CreateResult>): Promise<CreateResult> {
    const { ids, firstId } = this.declaration
    const values = this.#values(input)
    let id: RecordId | undefined
    if (ids === 'uuid') {
      id = randomUUID()
      values.unshift(id)
    } else if (ids === 'count') values.unshift(firstId)
    const query = { ...this.#s.create, values }
    const result = (row: Row | undefined): CreateResult => {
      const created = id ?? this.#layout.idOf(row?.id)
      return { outcome: row?.replaced === true ? 'replaced' : 'created', record: recordOf(this.declaration, created, input) }
    }
    if (keyed === undefined) return result((await writes.statement<Row>(query)).rows[0])
    return await writes.transaction(async (client) => result((await client.query<Row>(query)).rows[0]), keyed)
  }

  async createMany (inputs: readonly RecordInput[], keyed?: KeyedWrite<CreateResult[]>): Promise<CreateResult[]> {
    try {
      return await this.#createMany(inputs, keyed)
    } catch (err) {
      throw await this.#refusal(err)
    }
  }

  /**
   * One set-based INSERT … SELECT FROM unnest for the whole list, in one
   * transaction. The ids are drawn first, as the create function would draw
   * them one at a time (count and sequence under the counter row's lock,
   * int64 from the SEQUENCE skipping ids held, uuid at random); then every
   * row goes in with its change appended by the same statement (the row
   * trigger stays out of it, as for an import), and the counter row moves
   * on once. A count run that meets a record held (a hole the rule fills
   * again) is created row by row through the function, which replaces as
   * the rule says; an int64 id a racing write took meanwhile likewise.
   */
  async #createMany (inputs: readonly RecordInput[], keyed?: KeyedWrite<CreateResult[]>): Promise<CreateResult[]> {
    if (inputs.length === 0) return await this.#writes.transaction(async () => [], keyed)
    return await this.#writes.transaction(async (client) => {
      const ids = await this.#drawIds(client, inputs.length)
      if (ids === undefined) {
        const results: CreateResult[] = []
        for (const input of inputs) results.push(await this.#createWith(client, input))
        return results
      }
      const rows = inputs.map((input) => this.#values(input))
      const values = [ids.map(String), ...this.#layout.columns.map((_, i) => rows.map((row) => row[i]))]
      await client.query("SET LOCAL rqs.import = 'on'")
      const applied = (await client.query<Row>({ ...this.#s.createMany, values })).rows
      await client.query("SET LOCAL rqs.import = 'off'")
      const replaced = new Map(applied.map((row) => [String(row.id), row.replaced === true]))
      const results: CreateResult[] = []
      for (const [i, input] of inputs.entries()) {
        const outcome = replaced.get(String(ids[i]))
        // Not inserted: an int64 id a racing write by id took after it was drawn.
        if (outcome === undefined) results.push(await this.#createWith(client, input))
        else results.push({ outcome: outcome ? 'replaced' : 'created', record: recordOf(this.declaration, this.#layout.idOf(ids[i]), input) })
      }
      if (this.#layout.counted) {
        const created = results.filter((r) => r.outcome === 'created').length
        await client.query({ ...this.#s.countedMany, values: [created, String(BigInt(ids[ids.length - 1] as bigint) + 1n)] })
      }
      return results
    }, keyed)
  }

  /** The ids of `n` new records in order, as n creates would draw them; undefined when a count run meets a record held. */
  async #drawIds (client: PoolClient, n: number): Promise<Array<bigint | string> | undefined> {
    const { ids, firstId } = this.declaration
    if (ids === 'uuid') return Array.from({ length: n }, () => randomUUID())
    if (ids === 'int64') {
      const drawn: bigint[] = []
      while (drawn.length < n) {
        const rows = (await client.query<{ id: bigint }>(drawIdsText(this.#layout, this.#sequence as string), [n - drawn.length])).rows
        drawn.push(...rows.map((r) => BigInt(r.id)))
      }
      return drawn.sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
    }
    const counter = (await client.query<{ n: bigint, next_id: bigint }>({ ...this.#s.counter })).rows[0]
    if (counter === undefined) throw new RangeError(`${this.declaration.name} has no counter row`)
    const first = ids === 'count' ? BigInt(firstId) + BigInt(counter.n) : BigInt(counter.next_id)
    if (ids === 'count' && (await client.query({ ...this.#s.heldIn, values: [String(first), String(first + BigInt(n))] })).rows.length > 0) return undefined
    return Array.from({ length: n }, (_, i) => first + BigInt(i))
  }

  async #createWith (client: PoolClient, input: RecordInput): Promise<CreateResult> {
    const { ids, firstId } = this.declaration
    const values = this.#values(input)
    const id = ids === 'uuid' ? randomUUID() : undefined
    if (id !== undefined) values.unshift(id)
    else if (ids === 'count') values.unshift(firstId)
    const row = (await client.query<Row>({ ...this.#s.create, values })).rows[0]
    return { outcome: row?.replaced === true ? 'replaced' : 'created', record: recordOf(this.declaration, id ?? this.#layout.idOf(row?.id), input) }
  }

  async #put (writes: Writes, id: RecordId, input: RecordInput, condition: WriteCondition<StoredRecord>, keyed?: KeyedWrite<WriteResult>): Promise<WriteResult> {
    const { putCreates } = this.declaration
    // A create by id changes the count: the counter row must be locked first.
    const counts = putCreates && this.#layout.counted
    if (condition.kind === 'none' && keyed === undefined && !counts) {
      const query = putCreates ? this.#upsert(id, input) : this.#update(id, input)
      return this.#written((await writes.statement<Row>(query)).rows[0])
    }
    return await writes.transaction(async (client): Promise<WriteResult> => {
      if (counts) await client.query({ ...this.#s.lockCounter })
      if (condition.kind === 'none') {
        if (!putCreates) return this.#written((await client.query<Row>(this.#update(id, input))).rows[0])
        const result = this.#written((await client.query<Row>(this.#upsert(id, input))).rows[0])
        if (counts && result.outcome === 'created') await client.query({ ...this.#s.counted })
        return result
      }
      const row = (await client.query<Row>({ ...this.#s.lock, values: [id] })).rows[0]
      const current = row === undefined ? undefined : this.#layout.toRecord(row)
      if (current === undefined && !putCreates) return NOT_FOUND
      if (!conditionHolds(condition, current, sameRecord)) return PRECONDITION_FAILED
      if (current !== undefined) return this.#written((await client.query<Row>(this.#update(id, input))).rows[0])
      // Absent when locked, but another write may insert it meanwhile: then the condition no longer holds.
      const inserted = (await client.query<Row>({ ...this.#s.insert, values: [id, ...this.#values(input)] })).rows[0]
      if (inserted === undefined) return PRECONDITION_FAILED
      if (counts) await client.query({ ...this.#s.counted })
      return { outcome: 'created', record: this.#layout.toRecord(inserted) }
    }, keyed)
  }

  async #delete (writes: Writes, id: RecordId, condition: WriteCondition<StoredRecord>, keyed?: KeyedWrite<DeleteResult>): Promise<DeleteResult> {
    if (condition.kind === 'none' && keyed === undefined) return this.#deleted(await writes.statement<Row>({ ...this.#s.delete, values: [id] }))
    return await writes.transaction(async (client): Promise<DeleteResult> => {
      if (condition.kind === 'none') return this.#deleted(await client.query<Row>({ ...this.#s.delete, values: [id] }))
      if (this.#layout.counted) await client.query({ ...this.#s.lockCounter })
      const row = (await client.query<Row>({ ...this.#s.lock, values: [id] })).rows[0]
      if (row === undefined) return NOT_FOUND
      if (!conditionHolds(condition, this.#layout.toRecord(row), sameRecord)) return PRECONDITION_FAILED
      await client.query({ ...this.#s.remove, values: [id] })
      if (this.#layout.counted) await client.query({ ...this.#s.uncounted })
      return DELETED
    }, keyed)
  }

  /**
   * One transaction: the selected rows locked (after the counter row, as
   * every write takes them), each merged, and written back by one UPDATE
   * from the columns' arrays; the trigger records a change per row.
   */
  async updateWhere (filter: RecordFilter, patch: Readonly<Record<string, unknown>>, keyed?: KeyedWrite<number>): Promise<number> {
    try {
      return await this.#updateWhere(filter, patch, keyed)
    } catch (err) {
      throw await this.#refusal(err)
    }
  }

  async #updateWhere (filter: RecordFilter, patch: Readonly<Record<string, unknown>>, keyed?: KeyedWrite<number>): Promise<number> {
    return await this.#writes.transaction(async (client) => {
      const records = await this.#queries.locked(client, filter)
      if (records.length === 0) return 0
      const rows = records.map((current) => this.#values(mergePatch(this.declaration, current, patch) as RecordInput))
      const values = [records.map((r) => r.id), ...this.#updated.map((i) => rows.map((row) => row[i]))]
      await client.query({ text: this.#s.updateMany.text, values })
      return records.length
    }, keyed)
  }

  async deleteWhere (filter: RecordFilter, keyed?: KeyedWrite<number>): Promise<number> {
    try {
      return await this.#deleteWhere(filter, keyed)
    } catch (err) {
      throw await this.#refusal(err)
    }
  }

  async #deleteWhere (filter: RecordFilter, keyed?: KeyedWrite<number>): Promise<number> {
    return await this.#writes.transaction(async (client) => {
      if (this.#layout.counted) await client.query({ ...this.#s.lockCounter })
      const records = await this.#queries.locked(client, filter)
      if (records.length === 0) return 0
      await client.query({ text: this.#s.deleteMany.text, values: [records.map((r) => r.id)] })
      if (this.#layout.counted) await client.query({ text: this.#s.uncountedBy.text, values: [records.length] })
      return records.length
    }, keyed)
  }

  async query (query: RecordQuery): Promise<StoredRecord[]> {
    return await this.#queries.query(query)
  }

  async aggregate (query: AggregateQuery): Promise<AggregateRow[]> {
    return await this.#queries.aggregate(query)
  }

  async count (filter: RecordFilter): Promise<number> {
    return await this.#queries.count(filter)
  }

  batches (query: RecordQuery): AsyncIterable<StoredRecord[]> {
    return this.#batches(query)
  }

  async * #batches (query: RecordQuery): AsyncGenerator<StoredRecord[]> {
    yield * this.#queries.batches(query)
  }

  /**
   * Stages the file, then upserts it by id in one short transaction (holding
   * the counter row's lock for count/sequence ids, which creates and deletes
   * take first) and brings the id state up to date (see importStaged).
   */
  async importAll (source: AsyncIterable<readonly StoredRecord[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number> {
    try {
      return await importStaged(this.#pool, importPlan(this.#layout, this.#sequence), source, onApplied)
    } catch (err) {
      throw await this.#refusal(err)
    }
  }

  /** This collection's part of an import of several (RecordStores.importAllOf): its plan and its refusals. */
  importPart (source: AsyncIterable<readonly StoredRecord[]>, onApplied?: (outcome: ImportOutcome) => void): ImportPart<StoredRecord> {
    return { plan: importPlan(this.#layout, this.#sequence), source, ...(onApplied === undefined ? {} : { onApplied }), refusal: async (err) => await this.#refusal(err) }
  }

  /** A write's values in the order of layout.columns: each field's (NULL when unset), then each folded copy. */
  #values (input: RecordInput): unknown[] {
    const fields = this.#layout.fields
    const values: unknown[] = fields.map((f) => boundValue(f.type, input[f.name]))
    for (const f of fields) {
      if (f.folded === undefined) continue
      const value = input[f.name]
      values.push(value === undefined || value === null ? null : fold(value as string))
    }
    return values
  }

  #upsert (id: RecordId, input: RecordInput): QueryConfig {
    return { ...this.#s.upsert, values: [id, ...this.#values(input)] }
  }

  #update (id: RecordId, input: RecordInput): QueryConfig {
    const values = this.#values(input)
    return { ...this.#s.update, values: [id, ...this.#updated.map((i) => values[i])] }
  }

  #written (row: Row | undefined): WriteResult {
    if (row === undefined) return NOT_FOUND
    return { outcome: row.rqs__inserted === true ? 'created' : 'replaced', record: this.#layout.toRecord(row) }
  }

  #deleted (result: { rowCount: number | null, rows: Row[] }): DeleteResult {
    if (this.#layout.counted) return result.rows[0]?.o_deleted === true ? DELETED : NOT_FOUND
    return result.rowCount === 1 ? DELETED : NOT_FOUND
  }
}

/** Four characters that differ between two field lists of one collection (almost always). */
function shapeTag (layout: TableLayout): string {
  const digest = createHash('sha1').update(JSON.stringify(layout.fields.map((f) => [f.name, f.type, f.required, f.column]))).digest()
  return digest.readUInt32BE(0).toString(36).slice(0, 4)
}

/**
 * `version`: the version of the declaration the collection is pinned at;
 * each statement that writes first (or alone) then carries its guard
 * (`until`: any version from `version` to it).
 */
function statements (layout: TableLayout, version?: number, until?: number): Statements {
  const { declaration, table, fields, routines } = layout
  // A connection keeps its prepared statements by name: a changed declaration's are named apart (collections changed while the server runs).
  const prefix = `rqs-${declaration.name}`
  const shape = `@${shapeTag(layout)}${version === undefined ? '' : `~v${version}`}${until === undefined || until === version ? '' : `-${until}`}`
  const guard = version === undefined ? undefined : schemaGuard(declaration.name, version, until)
  const and = guard === undefined ? '' : ` AND ${guard}`
  const where = guard === undefined ? '' : ` WHERE ${guard}`

  const name = literal(declaration.name)
  const select = layout.sql.select
  const columns = ['id', ...layout.columns]
  const params = columns.map((_, i) => `$${i + 1}`)
  // VALUES takes no condition: a guarded insert selects its typed parameters under the guard instead.
  const types = [layout.idSqlType, ...fields.map((f) => f.sqlType), ...fields.flatMap((f) => f.folded === undefined ? [] : ['text'])]
  const values = guard === undefined ? `VALUES (${params.join(', ')})` : `SELECT ${types.map((t, i) => `$${i + 1}::${t}`).join(', ')}${where}`
  // $1 is the id, then the values in the order of layout.columns; fields kept on update are not written by one.
  const kept = new Set(declaration.keptOnUpdate)
  const written = new Set<string>()
  for (const f of fields) {
    if (kept.has(f.name)) continue
    written.add(f.column)
    if (f.folded !== undefined) written.add(f.folded)
  }
  const sets = layout.columns.filter((c) => written.has(c))
  const update = sets.length === 0 ? 'id = id' : sets.map((c, i) => `${c} = $${i + 2}`).join(', ')
  const excluded = sets.length === 0 ? 'id = t.id' : sets.map((c) => `${c} = EXCLUDED.${c}`).join(', ')
  const args = layout.fields.length + layout.fields.filter((f) => f.folded !== undefined).length
  const argList = (from: number): string => Array.from({ length: args }, (_, i) => `$${i + from}`).join(', ')
  const idType = layout.idSqlType
  let create: string
  switch (declaration.ids) {
    case 'count': create = `SELECT o_id AS id, o_replaced AS replaced FROM ${routines.create}($1${args === 0 ? '' : `, ${argList(2)}`})${where}`; break
    case 'sequence': create = `SELECT o_id AS id, o_replaced AS replaced FROM ${routines.createNext}(${argList(1)})${where}`; break
    case 'int64': create = `SELECT o_id AS id FROM ${routines.create}(${argList(1)})${where}`; break
    case 'uuid': create = `INSERT INTO ${table} (${columns.join(', ')}) ${values}`; break
  }
  return {
    create: { name: `${prefix}-create${shape}`, text: create },
    createMany: { name: `${prefix}-create-many${shape}`, text: createManyText(layout, where) },
    counter: { name: `${prefix}-counter${shape}`, text: `SELECT n, next_id FROM rqs_ids WHERE collection = ${name}${and} FOR UPDATE` },
    heldIn: { name: `${prefix}-held-in${shape}`, text: `SELECT 1 FROM ${table} WHERE id >= $1::bigint AND id < $2::bigint LIMIT 1` },
    countedMany: { name: `${prefix}-counted-many${shape}`, text: `UPDATE rqs_ids SET n = n + $1::bigint, next_id = GREATEST(next_id, $2::bigint) WHERE collection = ${name}` },
    updateMany: { name: `${prefix}-update-many${shape}`, text: updateManyText(layout, sets, and) },
    deleteMany: { name: `${prefix}-delete-many${shape}`, text: `DELETE FROM ${table} WHERE id = ANY($1::${layout.idSqlType}[])${and}` },
    uncountedBy: { name: `${prefix}-uncounted-by${shape}`, text: `UPDATE rqs_ids SET n = n - $1 WHERE collection = ${name}` },
    getMany: { name: `${prefix}-get-many${shape}`, text: `SELECT ${select} FROM ${table} WHERE id = ANY($1::${idType}[])` },
    update: { name: `${prefix}-update${shape}`, text: `UPDATE ${table} SET ${update} WHERE id = $1${and} RETURNING ${select}` },
    // After an upsert, xmax is 0 only on a freshly inserted row (an updated one carries the locker's id).
    upsert: {
      name: `${prefix}-upsert${shape}`,
      text: `INSERT INTO ${table} AS t (${columns.join(', ')}) ${values} ON CONFLICT (id) DO UPDATE SET ${excluded} RETURNING ${select}, t.xmax = 0 AS rqs__inserted`
    },
    insert: { name: `${prefix}-insert${shape}`, text: `INSERT INTO ${table} (${columns.join(', ')}) ${values} ON CONFLICT (id) DO NOTHING RETURNING ${select}` },
    lock: { name: `${prefix}-lock${shape}`, text: `SELECT ${select} FROM ${table} WHERE id = $1${and} FOR UPDATE` },
    lockCounter: { name: `${prefix}-lock-counter${shape}`, text: `SELECT n FROM rqs_ids WHERE collection = ${name}${and} FOR UPDATE` },
    delete: layout.counted
      ? { name: `${prefix}-delete${shape}`, text: `SELECT o_deleted FROM ${routines.delete}($1)${where}` }
      : { name: `${prefix}-delete${shape}`, text: `DELETE FROM ${table} WHERE id = $1${and}` },
    remove: { name: `${prefix}-remove${shape}`, text: `DELETE FROM ${table} WHERE id = $1${and}` },
    counted: { name: `${prefix}-counted${shape}`, text: `UPDATE rqs_ids SET n = n + 1 WHERE collection = ${name}` },
    uncounted: { name: `${prefix}-uncounted${shape}`, text: `UPDATE rqs_ids SET n = n - 1 WHERE collection = ${name}` }
  }
}

/**
 * A bulk create: the ids and the columns' arrays unnested together, inserted
 * in one statement (count and sequence ids replace a record held, as their
 * create functions do; an int64 id held is skipped, for the caller to draw
 * again), each inserted row's change appended in the input's order as the
 * row trigger would (the caller turns it off for the statement). Answers
 * each row's id and whether it replaced one.
 */
function createManyText (layout: TableLayout, where: string): string {
  const { declaration, table, fields } = layout
  const types = [layout.idSqlType, ...fields.map((f) => f.sqlType), ...fields.flatMap((f) => f.folded === undefined ? [] : ['text'])]
  const names = ['id', ...layout.columns.map((_, i) => `c${i}`)]
  const updates = layout.columns.length === 0 ? 'id = t.id' : layout.columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')
  const conflict = declaration.ids === 'uuid' ? '' : declaration.ids === 'int64' ? 'ON CONFLICT (id) DO NOTHING' : `ON CONFLICT (id) DO UPDATE SET ${updates}`
  const [idColumns, id] = layout.idSqlType === 'text' ? ['record_id, record_key', '0, a.id'] : ['record_id', 'a.id']
  return `WITH u AS (SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) WITH ORDINALITY AS u(${[...names, 'rqs__ord'].join(', ')})${where}),
    applied AS (
      INSERT INTO ${table} AS t (${['id', ...layout.columns].join(', ')}) SELECT ${names.join(', ')} FROM u ORDER BY rqs__ord ${conflict}
      RETURNING t.*, t.xmax <> 0 AS rqs__replaced
    ),
    changed AS (
      INSERT INTO rqs_pending_changes (service, kind, ${idColumns}, record)
      SELECT ${literal(declaration.name)}, CASE WHEN a.rqs__replaced THEN 'replaced' ELSE 'created' END, ${id}, ${changedJson(layout, 'a')}
      FROM applied a JOIN u ON u.id = a.id ORDER BY u.rqs__ord
    )
    SELECT id, rqs__replaced AS replaced FROM applied`
}

/** Up to $1 new ids of an int64 collection from its SEQUENCE, those a record holds left out (its create function skips them too). */
function drawIdsText (layout: TableLayout, sequence: string): string {
  return `SELECT s.id FROM (SELECT nextval(${literal(sequence)}) AS id FROM generate_series(1, $1::integer)) s
    WHERE NOT EXISTS (SELECT 1 FROM ${layout.table} t WHERE t.id = s.id)`
}

/** UPDATE of the `sets` columns of many rows from arrays: the ids ($1), then each column's values in the order of `sets`. */
function updateManyText (layout: TableLayout, sets: readonly string[], and: string): string {
  const types = [...layout.fields.map((f) => f.sqlType), ...layout.fields.flatMap((f) => f.folded === undefined ? [] : ['text'])]
  const typeOf = (column: string): string => types[layout.columns.indexOf(column)] ?? 'text'
  if (sets.length === 0) return `UPDATE ${layout.table} SET id = id WHERE id = ANY($1::${layout.idSqlType}[])${and}`
  const arrays = [`$1::${layout.idSqlType}[]`, ...sets.map((c, i) => `$${i + 2}::${typeOf(c)}[]`)]
  const names = sets.map((_, i) => `c${i}`)
  return `UPDATE ${layout.table} AS t SET ${sets.map((c, i) => `${c} = u.${names[i] as string}`).join(', ')}
    FROM unnest(${arrays.join(', ')}) AS u(id, ${names.join(', ')}) WHERE t.id = u.id${and}`
}

/**
 * Moves an int64 collection's sequence to the first id at or after its next
 * value that no record holds (the end of the run of taken ids it points
 * into), so a create after a large import does not try every imported id.
 * With `staged` (the import's staging table), the ids about to be imported
 * count as taken too: run before the apply, creates meanwhile draw ids past
 * the file's run instead of waiting on its uncommitted rows. A file whose ids
 * leave gaps above the sequence can still meet a create in a gap's far side;
 * jumping to its largest id instead could exhaust the sequence on one stray id.
 */
function skipTakenIds (table: string, sequence: string, staged?: string): string {
  const taken = staged === undefined ? table : `(SELECT id FROM ${table} UNION ALL SELECT id FROM ${staged})`
  return `SELECT setval(${literal(sequence)}, s.first_free, false) FROM (
  SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM ${taken} t WHERE t.id = c.next) THEN c.next
    ELSE coalesce((SELECT min(a.id) + 1 FROM ${taken} a
      WHERE a.id >= c.next AND a.id < ${MAX_INT64} AND NOT EXISTS (SELECT 1 FROM ${taken} b WHERE b.id = a.id + 1)), c.next) END AS first_free
  FROM (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END AS next FROM ${sequence}) c) s`
}

function importPlan (layout: TableLayout, sequence: string | null): ImportPlan<StoredRecord> {
  const { declaration, table, fields } = layout
  const name = literal(declaration.name)
  const columns: Array<readonly [string, string, (r: StoredRecord) => unknown]> = [['id', layout.idSqlType, (r) => r.id]]
  for (const f of fields) columns.push([f.column, f.sqlType, (r) => boundValue(f.type, r[f.name])])
  for (const f of fields) {
    if (f.folded !== undefined) columns.push([f.folded, 'text', (r) => { const v = r[f.name]; return v === undefined || v === null ? null : fold(v as string) }])
  }
  let reserve: ((staged: string) => string) | undefined
  let lock: string | undefined
  let finish: string | undefined
  let frontier: string | undefined
  if (layout.counted) {
    // Creates and deletes lock the counter before a record. The import takes it after writing the file's rows, so creates go on
    // meanwhile: under count ids they take ids past the records held (the frontier, written last); under sequence ids, past the file's.
    lock = `SELECT n FROM rqs_ids WHERE collection = ${name} FOR UPDATE`
    if (declaration.ids === 'count') frontier = `SELECT n FROM rqs_ids WHERE collection = ${name}`
    else reserve = (staged) => `UPDATE rqs_ids SET next_id = GREATEST(next_id, (SELECT max(id) + 1 FROM ${staged})) WHERE collection = ${name}`
    finish = `UPDATE rqs_ids SET n = (SELECT count(*) FROM ${table}),
      next_id = GREATEST(next_id, COALESCE((SELECT max(id) + 1 FROM ${table}), 0)) WHERE collection = ${name}`
  } else if (declaration.ids === 'int64') {
    if (sequence !== null) {
      reserve = (staged) => skipTakenIds(table, sequence, staged)
      finish = skipTakenIds(table, sequence)
    }
  }
  return { reserve, table, service: declaration.name, changeId: layout.idSqlType === 'text' ? 'record_key' : 'record_id', columns, changed: changedJson(layout, 'a'), lock, finish, frontier }
}
