import { idTypeOf, jsonOf, KINDS, type Change, type ChangeKind, type ChangeListener, type ChangeSubscription, type CollectionDeclaration, type RecordId, type StoredRecord } from '../domain/index.js'
/**
 * What the SQL stores share about delivering changes: they read the change
 * table by sequence number from the last one delivered, whatever woke them
 * (a NOTIFY, a poll), so a change is delivered once and in order even when
 * wake-ups are lost, doubled or arrive while a read is under way.
 */

/** Most changes one read of the change table returns. */
export const CHANGE_PAGE = 500

/** How often the SQL stores delete changes older than the retention window (ms). */
export const CHANGES_PRUNE_INTERVAL_MS = 60_000

/** A row of a change table, its columns read by the store's driver. */
export interface ChangeRow {
  seq: number
  service: string
  kind: string
  /** The record's id as the table keeps it: an integer (bigint) or text (UUIDs). */
  recordId: bigint | string
  /** The record's fields besides its id, as the trigger wrote them (camelCase); null after a delete. */
  fields: Record<string, unknown> | null
  at: Date
}

/**
 * The Change a row of the change table describes, its id and fields typed by
 * the collection's declaration (booleans stored as 0/1 become booleans, unset
 * optional fields are left out). A collection no longer declared keeps its
 * changes as they were written: the sequence stays unbroken.
 */
export function changeFromRow (row: ChangeRow, declarations: ReadonlyMap<string, CollectionDeclaration>): Change {
  const kind = row.kind as ChangeKind
  const { seq, at } = row
  const declaration = declarations.get(row.service)
  const type = declaration === undefined ? undefined : idTypeOf(declaration)
  const id: RecordId = type === 'number' ? Number(row.recordId) : type === 'string' ? String(row.recordId) : row.recordId
  if (row.fields === null) return { seq, service: row.service, kind, id, record: null, at }
  const record: Record<string, unknown> = { id }
  if (declaration === undefined) Object.assign(record, row.fields)
  else {
    for (const [name, field] of Object.entries(declaration.fields)) {
      const value = row.fields[name]
      if (value === null || value === undefined) continue
      record[name] = field.type === 'boolean' ? value === true || value === 1 : KINDS[field.type].composite !== undefined ? jsonOf(value, field) : value
    }
  }
  return { seq, service: row.service, kind, id, record: record as StoredRecord, at }
}

export type ReadChanges = (after: number, limit: number) => Promise<Change[]>

export class ChangePump {
  readonly #read: ReadChanges
  readonly #onError: (err: unknown) => void
  readonly #listeners = new Set<ChangeListener>()
  #position: number
  #running: Promise<void> | undefined
  #again = false

  constructor (read: ReadChanges, position: number, onError: (err: unknown) => void) {
    this.#read = read
    this.#position = position
    this.#onError = onError
  }

  /** The last sequence number delivered. */
  get position (): number {
    return this.#position
  }

  get listening (): boolean {
    return this.#listeners.size > 0
  }

  subscribe (listener: ChangeListener): ChangeSubscription {
    this.#listeners.add(listener)
    return { position: this.#position, unsubscribe: () => { this.#listeners.delete(listener) } }
  }

  /**
   * Reads and delivers every change after the position. A call while a read
   * is under way makes that read go round once more instead of starting a
   * second one. A failed read is reported and retried at the next call.
   */
  async pump (): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true
      return await this.#running
    }
    this.#running = this.#drain()
    try { await this.#running } finally { this.#running = undefined }
  }

  async #drain (): Promise<void> {
    do {
      this.#again = false
      try {
        for (;;) {
          const changes = await this.#read(this.#position, CHANGE_PAGE)
          for (const change of changes) this.#deliver(change)
          if (changes.length < CHANGE_PAGE) break
        }
      } catch (err) {
        this.#onError(err)
        return
      }
    } while (this.#again)
  }

  #deliver (change: Change): void {
    if (change.seq <= this.#position) return
    this.#position = change.seq
    for (const listener of this.#listeners) listener(change)
  }
}
