import type { CollectionDeclaration, FieldData, OnDelete, RecordId, RecordInput } from './collection.js'

/**
 * References between collections (`x-references`): what every store checks
 * inside a write's own transaction. A write naming a record that does not
 * exist is refused; a delete of a record still named follows each referring
 * field's `x-on-delete`. The SQL stores may leave part of this to foreign
 * keys; the memory and SQLite stores run the plan below synchronously, so no
 * other write comes between the check and the write.
 */

/** A field of another collection that names records of this one. */
export interface IncomingReference {
  collection: string
  field: string
  onDelete: OnDelete
}

/** A write names a record its reference field's collection does not hold (422 REFERENCE_NOT_FOUND). */
export class DanglingReferenceError extends Error {
  override name = 'DanglingReferenceError'
  constructor (readonly collection: string, readonly field: string, readonly id: FieldData, readonly target: string) {
    super(`${field} names ${target}/${String(id)}, which does not exist`)
  }
}

/** A delete would leave records naming the deleted one (x-on-delete restrict: 409 RECORD_REFERENCED). */
export class RecordReferencedError extends Error {
  override name = 'RecordReferencedError'
  constructor (readonly collection: string, readonly id: RecordId, readonly referring: string, readonly field: string, readonly count: number) {
    super(`${collection}/${String(id)} is named by ${count} ${count === 1 ? 'record' : 'records'} of ${referring} (field ${field}, x-on-delete restrict)`)
  }
}

/** The references into each collection, by target name, from every declaration a store keeps. */
export function incomingReferences (declarations: readonly CollectionDeclaration[]): Map<string, IncomingReference[]> {
  const incoming = new Map<string, IncomingReference[]>()
  for (const declaration of declarations) {
    for (const [field, reference] of Object.entries(declaration.references ?? {})) {
      const list = incoming.get(reference.collection) ?? []
      list.push({ collection: declaration.name, field, onDelete: reference.onDelete })
      incoming.set(reference.collection, list)
    }
  }
  return incoming
}

/** A reference field's value as an id of its target (64-bit ids are bigints; a field holds a safe integer). */
export function referenceIdOf (target: CollectionDeclaration, value: FieldData): RecordId {
  if (target.ids === 'int64' && typeof value === 'number') return BigInt(value)
  return value as RecordId
}

/** The first reference of a write that names no record (`exists` answers for the target's id), if any. */
export function missingReference (declaration: CollectionDeclaration, input: RecordInput, exists: (collection: string, value: FieldData) => boolean): DanglingReferenceError | undefined {
  for (const [field, reference] of Object.entries(declaration.references ?? {})) {
    const value = input[field]
    if (value === undefined || value === null) continue
    // A list of references: each id is checked, the first missing one named.
    for (const item of Array.isArray(value) ? value as FieldData[] : [value]) {
      if (!exists(reference.collection, item)) return new DanglingReferenceError(declaration.name, field, item, reference.collection)
    }
  }
  return undefined
}

/** What a store can answer synchronously inside its write: the ids of the records of `collection` whose `field` holds `value` (or, a list, has it among its items). */
export interface ReferenceReader {
  referring: (collection: string, field: string, value: FieldData) => RecordId[]
}

/** Every record a delete removes besides its own (cascade) and every field it clears (set-null), in the order to apply them. */
export interface DeletionPlan {
  removed: Array<{ collection: string, id: RecordId }>
  cleared: Array<{ collection: string, id: RecordId, field: string }>
  /** Lists of references the deleted id is taken out of (x-on-delete remove). */
  pulled: Array<{ collection: string, id: RecordId, field: string, value: FieldData }>
}

/**
 * What deleting `collection/id` does to the records that name it, followed
 * through cascades (declarations have no cycles: the checker refuses them).
 * Throws RecordReferencedError when a restricting reference names a record
 * the delete would remove. Reads only: the caller applies the plan.
 */
export function deletionPlan (collection: string, id: RecordId, incoming: ReadonlyMap<string, readonly IncomingReference[]>, reader: ReferenceReader): DeletionPlan {
  const plan: DeletionPlan = { removed: [], cleared: [], pulled: [] }
  const removed = new Set<string>()
  const visit = (name: string, recordId: RecordId): void => {
    // A field holds a safe integer: a 64-bit id is compared as the number it holds.
    const value: FieldData = typeof recordId === 'bigint' ? Number(recordId) : recordId
    for (const reference of incoming.get(name) ?? []) {
      const ids = reader.referring(reference.collection, reference.field, value)
      if (ids.length === 0) continue
      if (reference.onDelete === 'restrict') throw new RecordReferencedError(name, recordId, reference.collection, reference.field, ids.length)
      for (const referringId of ids) {
        const key = `${reference.collection}/${String(referringId)}`
        if (removed.has(key)) continue
        if (reference.onDelete === 'remove') {
          plan.pulled.push({ collection: reference.collection, id: referringId, field: reference.field, value })
          continue
        }
        if (reference.onDelete === 'set-null') {
          plan.cleared.push({ collection: reference.collection, id: referringId, field: reference.field })
          continue
        }
        removed.add(key)
        visit(reference.collection, referringId)
        plan.removed.push({ collection: reference.collection, id: referringId })
      }
    }
  }
  visit(collection, id)
  // A record both cleared and removed (two paths) is only removed.
  plan.cleared = plan.cleared.filter((c) => !removed.has(`${c.collection}/${String(c.id)}`))
  plan.pulled = plan.pulled.filter((c) => !removed.has(`${c.collection}/${String(c.id)}`))
  return plan
}
