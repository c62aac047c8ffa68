import { randomBytes } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { ImportOutcome } from '../../domain/index.js'
import { rethrow } from './errors.js'

/** What an import into one table writes; see importStaged. */
export interface ImportPlan<R> {
  table: string
  /** Every column written, `id` first, and the value a record gives it. */
  columns: ReadonlyArray<readonly [name: string, value: (record: R) => unknown]>
  /** Run after the rows, in the same transaction: the bookkeeping rows (record count, next generated id); `staged` names the staged rows' table. */
  finish: (staged: string) => void
}

/**
 * Imports `source` into a table that other connections (a running server, in
 * this process or another) keep writing to (issue 19). Every batch goes into a
 * temporary table of this connection, which takes no lock on the database
 * file, so their writes go on while the file is read; then one write
 * transaction (BEGIN IMMEDIATE … COMMIT) applies it all (the last line of an
 * id wins, stored in id order) and `finish` brings the bookkeeping rows in step.
 * A failing source or write leaves the database untouched. The apply is the
 * only time the file's write lock is held: other writers wait for it (up to
 * their busy timeout, 2 s).
 *
 * Into an empty table the secondary indexes are dropped first and built again
 * at the end, in the same transaction: building an index from all the rows
 * at once is about twice as fast as growing it one row at a time.
 */
export async function importStaged<R> (db: Database.Database, plan: ImportPlan<R>, source: AsyncIterable<readonly R[]>, onApplied?: (outcome: ImportOutcome) => void): Promise<number> {
  return (await importStagedAll(db, [{ plan, source, onApplied }]))[0] as number
}

/** One file of an import of several (see importStagedAll). */
export interface ImportPart<R> {
  plan: ImportPlan<R>
  source: AsyncIterable<readonly R[]>
  onApplied?: (outcome: ImportOutcome) => void
  /** The store's own refusal for a failure of this part's apply (a duplicate). */
  refusal?: (err: unknown) => unknown
}

/**
 * Several files into their tables all or nothing (rqs import of several
 * collections): each staged in turn as importStaged stages one (no lock on
 * the file), then one BEGIN IMMEDIATE … COMMIT applies them in the order
 * given (a referenced collection first: each part's `finish` checks its
 * references against what the parts before it stored). A failing file or
 * apply leaves the database untouched. Returns how many records each gave.
 */
export async function importStagedAll<R> (db: Database.Database, parts: ReadonlyArray<ImportPart<R>>): Promise<number[]> {
  // Unique per import: several may stage on one connection at once (a server's --seed, tests).
  const tag = randomBytes(6).toString('hex')
  const tables = parts.map((_, i) => `temp.rqs_import_${tag}_${i}`)
  const created: string[] = []
  let cacheSize: number | undefined
  let applying: ImportPart<R> | undefined
  try {
    const counts: number[] = []
    for (const [i, { plan, source }] of parts.entries()) {
      const staged = tables[i] as string
      const names = plan.columns.map(([name]) => name)
      // rqs__ord: a name no field's column can take (../column-names.ts).
      db.exec(`CREATE TEMP TABLE ${staged.slice('temp.'.length)} (rqs__ord INTEGER PRIMARY KEY, ${names.join(', ')})`)
      created.push(staged)
      const insert = db.prepare(`INSERT INTO ${staged} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
      // A transaction that writes only the temporary database locks nothing of the file.
      const stage = db.transaction((batch: readonly R[]) => {
        for (const record of batch) insert.run(...plan.columns.map(([, value]) => value(record)))
      })
      let count = 0
      for await (const batch of source) {
        stage(batch)
        count += batch.length
      }
      counts.push(count)
    }
    // A large page cache while the indexes grow (256 MiB at most, given back afterwards).
    cacheSize = db.pragma('cache_size', { simple: true }) as number
    db.pragma('cache_size = -262144')
    db.exec('BEGIN IMMEDIATE')
    const outcomes: ImportOutcome[] = []
    for (const [i, part] of parts.entries()) {
      applying = part
      outcomes.push(applyStaged(db, part.plan, tables[i] as string, part.onApplied !== undefined))
    }
    applying = undefined
    db.exec('COMMIT')
    for (const [i, part] of parts.entries()) part.onApplied?.(outcomes[i] as ImportOutcome)
    return counts
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    return rethrow(applying?.refusal === undefined ? err : applying.refusal(err))
  } finally {
    if (cacheSize !== undefined) db.pragma(`cache_size = ${cacheSize}`)
    if (db.open) for (const staged of created) db.exec(`DROP TABLE IF EXISTS ${staged}`)
  }
}

/** Applies one staged file inside the open transaction: its rows (the last line of an id wins, in id order), then its bookkeeping. */
function applyStaged<R> (db: Database.Database, plan: ImportPlan<R>, staged: string, counted: boolean): ImportOutcome {
  const names = plan.columns.map(([name]) => name)
  const empty = db.prepare(`SELECT NOT EXISTS (SELECT 1 FROM ${plan.table})`).pluck().get() === 1
  const indexes = empty
    ? db.prepare<[string], { name: string, sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(plan.table)
    : []
  for (const index of indexes) db.exec(`DROP INDEX ${index.name}`)
  // Counted under the write lock, before the upsert: the staged ids a record already holds are replacements.
  const { ids, held } = !counted
    ? { ids: 0, held: 0 }
    : db.prepare<[], { ids: number, held: number }>(`SELECT count(*) AS ids, coalesce(sum(EXISTS (SELECT 1 FROM ${plan.table} t WHERE t.id = s.id)), 0) AS held FROM (SELECT DISTINCT id FROM ${staged}) s`).get() as { ids: number, held: number }
  // The last line of each id, in id order (one change each, as in the other stores): with max(), SQLite takes
  // the other columns from the row holding the maximum. "WHERE true" keeps ON CONFLICT from reading as a join's ON.
  // Positional aliases: a subquery's column named after a keyword SQLite reads specially ("false") is not found by name.
  const picked = names.map((c, i) => `${c} AS rqs__c${i}`).join(', ')
  db.exec(`INSERT INTO ${plan.table} (${names.join(', ')})
    SELECT ${names.map((_, i) => `rqs__c${i}`).join(', ')} FROM (SELECT ${picked}, max(rqs__ord) FROM ${staged} GROUP BY id) WHERE true ORDER BY rqs__c0
    ON CONFLICT (id) DO UPDATE SET ${names.slice(1).map((c) => `${c} = excluded.${c}`).join(', ')}`)
  for (const index of indexes) db.exec(index.sql)
  plan.finish(staged)
  return { created: ids - held, replaced: held }
}
