import { changedKeptField, mergePatch, type CollectionDeclaration, type RecordInput, type StoredRecord } from '../domain/index.js'
import { AppError, type Failure } from '../http/errors/index.js'
import type { CollectionModel } from '../records/index.js'

/**
 * The record a merge patch (RFC 7396) makes of `current`, as every writer
 * that patches one record writes it (REST's PATCH, a batch's PATCH,
 * GraphQL's update): a kept field the patch would change is refused, the
 * patch merged (mergePatch), server-set fields (`readOnly`: automatic
 * timestamps) the patch leaves out set again by the body's own rules, and the
 * result checked as a create body by `check` (which stamps them). Throws the
 * 400; `member` is how the writer names the patch in details (`body.name`).
 */
export function patchedRecord (
  declaration: CollectionDeclaration,
  current: StoredRecord,
  patch: Readonly<Record<string, unknown>>,
  readOnly: readonly string[],
  check: (record: Record<string, unknown>) => Failure[],
  member: 'body' | 'patch' = 'body'
): RecordInput {
  const kept = changedKeptField(declaration, current, patch)
  if (kept !== undefined) throw keptFieldChanged(kept, member)
  const merged = mergePatch(declaration, current, patch)
  // The creation time is kept by the store (keptOnUpdate); the update time is this write's.
  for (const field of readOnly) if (!Object.hasOwn(patch, field)) delete merged[field]
  const failures = check(merged)
  if (failures.length > 0) throw new AppError('VALIDATION_FAILED', failures.map((f) => f.detail).join('; '), { errors: failures, subject: 'body' })
  return merged as RecordInput
}

/** A kept field (the address book's name) that a patch would change: 400 naming it. */
export function keptFieldChanged (field: string, member: 'body' | 'patch' = 'body'): AppError {
  const detail = `${member}.${field} cannot change: an update keeps the stored value`
  return new AppError('VALIDATION_FAILED', detail, { errors: [{ code: 'FIELD_INVALID', field, detail }], subject: 'body' })
}

/** The fields a collection's query model marks as set by the server (automatic timestamps). */
export function readOnlyOf (model: CollectionModel): string[] {
  return Object.keys(model.fields).filter((field) => model.fields[field]?.readOnly === true)
}
