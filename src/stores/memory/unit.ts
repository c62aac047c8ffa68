import type { ChangeKind, RecordId, StoredRecord } from '../../domain/index.js'
import type { MemoryChangeLog } from './changes.js'

/**
 * The undo log of one unit of work on the memory stores: every write of the
 * unit is applied at once and leaves a step that takes it back; its changes
 * wait here and reach the change log only at commit, so the feed never
 * carries a change that was rolled back.
 */
export class MemoryUnit {
  readonly #undo: Array<() => void> = []
  readonly #changes: Array<{ collection: string, kind: ChangeKind, id: RecordId, record: StoredRecord | null }> = []

  /** Throws once the unit is over (it stalled and was rolled back); set by runUnit. */
  constructor (readonly open: () => void) {}

  /** Remembers how to take a write back. */
  undo (step: () => void): void {
    this.#undo.push(step)
  }

  changed (collection: string, kind: ChangeKind, id: RecordId, record: StoredRecord | null): void {
    this.#changes.push({ collection, kind, id, record })
  }

  commit (log: MemoryChangeLog): void {
    for (const c of this.#changes) log.changed(c.collection, c.kind, c.id, c.record)
  }

  rollback (): void {
    for (const step of this.#undo.reverse()) step()
  }
}
