import type Database from 'better-sqlite3'
import type { Statement } from 'better-sqlite3'

/** Rows a statement of a bulk insert takes at most: more cost less a row, up to about a thousand. */
const MAX_ROWS = 1024

/** Values one statement binds at most (SQLite's default limit). */
const MAX_BOUND = 32_766

/**
 * Inserts rows many to a statement: a run of rows is split into runs of
 * powers of two up to MAX_ROWS (fewer for a wide table: under SQLite's
 * limit of bound values), each size's INSERT … VALUES (…), (…) prepared
 * once when first needed, so a bulk create pays SQLite's and better-sqlite3's
 * per-statement cost once per run instead of once per row. The rows go in
 * order (their triggers' changes too).
 *
 * A row whose id is held already stops the insert: its statement is undone
 * (SQLite's statement rollback) and the rows inserted before it are counted,
 * so the caller can go on one row at a time from there, as the id rule says.
 * Any other failure (a unique key) is thrown.
 */
export class RowsInsert {
  readonly #db: Database.Database
  readonly #head: string
  readonly #row: string
  readonly #width: number
  readonly #most: number
  readonly #statements = new Map<number, Statement>()

  /** `columns`: quoted; `table`: quoted. */
  constructor (db: Database.Database, table: string, columns: readonly string[]) {
    this.#db = db
    this.#head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `
    this.#row = `(${columns.map(() => '?').join(', ')})`
    this.#width = columns.length
    let most = MAX_ROWS
    while (most > 1 && most * columns.length > MAX_BOUND) most >>= 1
    this.#most = most
  }

  /** Inserts the rows `values` holds (each row's values in turn, flat); answers how many went in before one whose id is held. */
  run (values: readonly unknown[]): number {
    const width = this.#width
    const total = values.length / width
    let at = 0
    try {
      for (let size = this.#most; size >= 1; size >>= 1) {
        const statement = total - at >= size ? this.#statement(size) : undefined
        while (statement !== undefined && total - at >= size) {
          statement.run(values.slice(at * width, (at + size) * width))
          at += size
        }
      }
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw err
    }
    return at
  }

  #statement (rows: number): Statement {
    let statement = this.#statements.get(rows)
    if (statement === undefined) {
      statement = this.#db.prepare(this.#head + Array<string>(rows).fill(this.#row).join(', '))
      this.#statements.set(rows, statement)
    }
    return statement
  }
}
