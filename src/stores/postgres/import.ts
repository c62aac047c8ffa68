import type { Pool, PoolClient } from 'pg'
import { StoreOutcomeUnknownError, type ImportOutcome } from '../../domain/index.js'
import { isLostAnswer, isUnavailable, rethrow } from './errors.js'
import { drainChanges } from './sequencer.js'

/**
 * How many ids past the records held a count-rule import writes last (see
 * ImportPlan.frontier): the creates a server can make while the rest of a
 * large file is applied, each without waiting for it.
 */
const FRONTIER = 10_000
/** Ids past the creates made so far left for those still to come before the import takes the counter's lock. */
const MARGIN = 1000

/** The SQL condition on a staged row's id: in (low, high]. */
function between (low: number, high: number): string {
  return `id > ${low} AND id <= ${high}`
}

/** What an import into one table writes; see importStaged. */
export interface ImportPlan<R> {
  table: string
  /** The change log's name for the table's records (the collection's name). */
  service: string
  /** The change log's column for the id: record_id (integers) or record_key (UUIDs, record_id 0). */
  changeId: 'record_id' | 'record_key'
  /** Every column written, `id` first: name, SQL type and the value a record gives it. */
  columns: ReadonlyArray<readonly [name: string, type: string, value: (record: R) => unknown]>
  /** The record's fields as the change log keeps them: jsonb over the applied row `a`, as the table's trigger builds it. */
  changed: string
  /**
   * Run on its own after staging, before the applying transaction (the
   * staged rows are pg_temp.rqs_import): moves generated ids past the file's,
   * so that a create while the file is applied takes an id the file does not
   * hold and never waits for the import's uncommitted row of that id.
   */
  reserve?: (staged: string) => string
  /**
   * Locks a concurrent write takes before any row's (the counter row of count
   * and sequence ids): taken in the applying transaction after the file's rows
   * (but the last of the frontier's), right before `finish`, so that creates go
   * on while the rows are written. A delete (or a create after deletes) of a
   * record the file holds, made during the apply, holds it while it waits for
   * the import's row: PostgreSQL ends that cycle after a second by refusing one
   * of the two, and a refused import leaves nothing behind.
   */
  lock?: string
  /**
   * The count id rule (id = records held + 1): a query giving the records
   * held. Creates while the file is applied take the ids just past it; the
   * file's rows among the next FRONTIER ids are written last, under `lock`,
   * so that those creates never wait for the import's uncommitted rows.
   */
  frontier?: string
  /** Run after the rows, in the same transaction: the bookkeeping rows (record count, next generated id). */
  finish?: string
}

/**
 * Imports `source` into a table the running servers use without stopping
 * their writes while the file is read (issue 19). Every batch goes into a
 * temporary table of this connection (no WAL, no lock on a live table, no
 * open transaction however slowly the file comes); generated ids are moved
 * past the file's (issue 36: a create that drew an id the file holds waited
 * for the whole apply, 10 s for 200 000 addresses; under count ids, whose
 * creates take the ids just past the records held, the file's rows there are
 * written last: see ImportPlan.frontier); then one transaction
 * applies it all: one upsert (the last line of an id wins), the bookkeeping
 * rows, and the file's changes appended unnumbered in the same statement
 * (like any write's, migration 8: one per record, in id order), which the
 * sequencer numbers right after the commit, so that readers of every instance
 * hear of them at once. A failing source or store leaves the live tables
 * untouched. Returns how many records the source gave.
 */
export async function importStaged<R> (pool: Pool, plan: ImportPlan<R>, source: AsyncIterable<readonly R[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number> {
  return (await importStagedAll(pool, [{ plan, source, onApplied }]))[0] as number
}

/** One file of an import of several (see importStagedAll). */
export interface ImportPart<R> {
  plan: ImportPlan<R>
  source: AsyncIterable<readonly R[]>
  onApplied?: (outcome: ImportOutcome) => void
  /** The store's own refusal for a failure of this part's apply (a duplicate, a dangling reference). */
  refusal?: (err: unknown) => Promise<unknown>
}

/**
 * Several files into their tables all or nothing (rqs import of several
 * collections): each is staged in turn on one connection, as importStaged
 * stages one, then one transaction applies them in the order given (a
 * referenced collection before those that refer to it: the foreign keys are
 * checked as each is applied) and commits them together. A failing file,
 * or any part's apply, leaves every live table untouched. Each part's apply
 * is importStaged's, so creates go on while its rows are written; the lock
 * it takes at its end (the counter row, count and sequence ids) is held
 * until the whole import commits, so writes that take that lock wait for the
 * later files' apply. Returns how many records each source gave.
 */
export async function importStagedAll<R> (pool: Pool, parts: ReadonlyArray<ImportPart<R>>): Promise<number[]> {
  let client: PoolClient
  try { client = await pool.connect() } catch (err) { return rethrow(err) }
  let broken: Error | undefined
  let committing = false
  const tables = parts.map((_, i) => i === 0 ? 'pg_temp.rqs_import' : `pg_temp.rqs_import_${i}`)
  let applying: ImportPart<R> | undefined
  try {
    const counts: number[] = []
    for (const [i, { plan, source }] of parts.entries()) {
      const staged = tables[i] as string
      await client.query(`DROP TABLE IF EXISTS ${staged}`)
      // rqs__ord: a name no field's column can take (column-names.ts), as rqs__inserted below.
      await client.query(`CREATE TEMP TABLE ${staged.slice('pg_temp.'.length)} (rqs__ord integer, ${plan.columns.map(([name, type]) => `${name} ${type}`).join(', ')})`)
      const stage = `INSERT INTO ${staged} SELECT * FROM unnest($1::integer[], ${plan.columns.map(([, type], i) => `$${i + 2}::${type}[]`).join(', ')})`
      let count = 0
      for await (const batch of source) {
        await client.query(stage, [batch.map((_, i) => count + i), ...plan.columns.map(([, , value]) => batch.map(value))])
        count += batch.length
      }
      if (plan.reserve !== undefined && count > 0) await client.query(plan.reserve(staged))
      // The frontier's rows are read by id range, some under the counter's lock: an index first, outside any lock.
      if (plan.frontier !== undefined && count > 0) await client.query(`CREATE INDEX ON ${staged} (id)`)
      counts.push(count)
    }
    await client.query('BEGIN')
    // The row triggers leave this transaction's changes to the statement below (migration 6).
    await client.query("SET LOCAL rqs.import = 'on'")
    const outcomes: ImportOutcome[] = []
    for (const [i, part] of parts.entries()) {
      applying = part
      outcomes.push(await applyStaged(client, part.plan, tables[i] as string))
    }
    applying = undefined
    committing = true
    await client.query('COMMIT')
    committing = false
    for (const [i, part] of parts.entries()) part.onApplied?.(outcomes[i] as ImportOutcome)
    // Committed: a failure to number is no failure of the import (any reader numbers them).
    if (counts.some((n) => n > 0)) await drainChanges(client).catch(() => {})
    return counts
  } catch (err) {
    if (isUnavailable(err) || isLostAnswer(err)) broken = err as Error
    else await client.query('ROLLBACK').catch((e: unknown) => { broken = e as Error })
    if (committing && isLostAnswer(err)) {
      throw new StoreOutcomeUnknownError(`PostgreSQL did not confirm the import (${(err as Error).message}); it may have been stored`, { cause: err })
    }
    return rethrow(applying?.refusal === undefined ? err : await applying.refusal(err))
  } finally {
    if (broken === undefined) await client.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`).catch((e: unknown) => { broken = e as Error })
    client.release(broken)
  }
}

/** Applies one staged file inside the open transaction: its rows, its changes, its frontier and lock, its bookkeeping. */
async function applyStaged<R> (client: PoolClient, plan: ImportPlan<R>, staged: string): Promise<ImportOutcome> {
  const names = plan.columns.map(([name]) => name)
  // The ids creates take next while the file is applied (count ids): (held, held + FRONTIER].
  const held = plan.frontier === undefined ? undefined : Number((await client.query<{ n: string }>(plan.frontier)).rows[0]?.n ?? 0)
  const frontier = held === undefined ? undefined : between(held, held + FRONTIER)
  const upsert = (where: string): string => `INSERT INTO ${plan.table} AS t (${names.join(', ')})
      SELECT DISTINCT ON (id) ${names.join(', ')} FROM ${staged} WHERE ${where} ORDER BY id, rqs__ord DESC
      ON CONFLICT (id) DO UPDATE SET ${names.length > 1 ? names.slice(1).map((c) => `${c} = EXCLUDED.${c}`).join(', ') : 'id = t.id'}`
  // Every change of the file in one statement, in id order; those of the frontier's rows, written below, as created for now.
  const rows = frontier === undefined
    ? 'applied'
    : `(SELECT ${names.join(', ')}, rqs__inserted FROM applied UNION ALL
        (SELECT DISTINCT ON (id) ${names.join(', ')}, true FROM ${staged} WHERE ${frontier} ORDER BY id, rqs__ord DESC))`
  const applied = await client.query<{ inserted: boolean, key: string, id: string }>(`WITH applied AS (
      ${upsert(frontier === undefined ? 'true' : `NOT (${frontier})`)}
      RETURNING t.*, t.xmax = 0 AS rqs__inserted
    )
    INSERT INTO rqs_pending_changes (service, kind, ${plan.changeId === 'record_key' ? 'record_id, record_key' : 'record_id'}, record)
    SELECT $1, CASE WHEN a.rqs__inserted THEN 'created' ELSE 'replaced' END, ${plan.changeId === 'record_key' ? '0, a.id' : 'a.id'}, ${plan.changed}
    FROM ${rows} a ORDER BY a.id
    RETURNING kind = 'created' AS inserted, key::text, record_id::text AS id`, [plan.service])
  let replacedLater = 0
  /** Writes the file's rows with ids in (low, high]: a create made one meanwhile, and its change becomes a replacement. */
  const writeFrontier = async (low: number, high: number): Promise<void> => {
    if (high <= low) return
    const changes = applied.rows.filter((row) => Number(row.id) > low && Number(row.id) <= high)
    replacedLater += (await client.query(`WITH applied AS (${upsert(between(low, high))} RETURNING t.id, t.xmax = 0 AS rqs__inserted)
      UPDATE rqs_pending_changes p SET kind = 'replaced'
      FROM applied a JOIN unnest($1::bigint[], $2::bigint[]) AS c (key, id) ON c.id = a.id
      WHERE NOT a.rqs__inserted AND p.key = c.key`, [changes.map((row) => row.key), changes.map((row) => row.id)])).rowCount ?? 0
  }
  let reach = held ?? 0
  if (held !== undefined && plan.frontier !== undefined) {
    // The creates made so far: the frontier's rows beyond their reach (and a margin) are written before the lock, the rest under it.
    reach = Math.min(held + FRONTIER, Math.max(held, Number((await client.query<{ n: string }>(plan.frontier)).rows[0]?.n ?? 0)) + MARGIN)
    await writeFrontier(reach, held + FRONTIER)
  }
  if (plan.lock !== undefined) await client.query(plan.lock)
  if (held !== undefined) await writeFrontier(held, reach)
  if (plan.finish !== undefined) await client.query(plan.finish)
  const created = applied.rows.filter((row) => row.inserted).length - replacedLater
  return { created, replaced: applied.rows.length - created }
}
