import type { CollectionDeclaration, StoredRecord } from './collection.js'

/**
 * A merge patch (RFC 7396) on a flat record, for REST's PATCH and GraphQL's
 * update mutations alike: a member sent replaces the field, `null` removes it
 * (an optional field; a required one is then missing, which the caller's
 * validation refuses), a member left out keeps the stored value. The id is
 * never patched; fields the declaration keeps on update keep their value.
 */
export function mergePatch (declaration: CollectionDeclaration, current: StoredRecord, patch: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const merged: Record<string, unknown> = {}
  for (const field of Object.keys(declaration.fields)) {
    const sent = Object.hasOwn(patch, field) ? patch[field] : undefined
    const value = sent === undefined || declaration.keptOnUpdate.includes(field) ? current[field] : sent
    if (value !== null && value !== undefined) merged[field] = value
  }
  return merged
}

/** A field the declaration keeps on update (one set only when the record is created) that the patch would change: refused rather than silently kept. */
export function changedKeptField (declaration: CollectionDeclaration, current: StoredRecord, patch: Readonly<Record<string, unknown>>): string | undefined {
  return declaration.keptOnUpdate.find((f) => Object.hasOwn(patch, f) && patch[f] !== current[f])
}
