import { isDeepStrictEqual } from 'node:util'
import { hasOwnIndex, type CollectionDeclaration, type FieldData, type RecordId } from './collection.js'
import { convertsFrom, type Kind } from './kinds/index.js'

/**
 * A change of a collection's declaration while the server runs, planned
 * before anything is written: what happens to the fields of the records
 * held. The plan is a pure difference of two declarations; what it meets in
 * the records (values lost, values that would not convert, duplicates that
 * block a unique key) the stores find (SchemaFindings).
 */
export interface SchemaPlan {
  collection: string
  action: 'create' | 'change' | 'remove'
  /** Fields new in the declaration, each with the default every record held gets (none: left unset). */
  added: Array<{ field: string, default?: FieldData }>
  /** Fields the declaration no longer has: their values go. */
  dropped: string[]
  /** Fields under a new name (`"x-renamed-from"`): their values move. */
  renamed: Array<{ from: string, to: string }>
  /** Fields of a new kind whose values are converted. */
  converted: Array<{ field: string, from: Kind, to: Kind }>
  /** Unique keys new in the declaration: records that share their values block them. */
  uniqueAdded: string[][]
  /** Fields that get an index of their own (every added, renamed or converted field, and one newly declared in `indexes`, unless `indexes` leaves it out). */
  indexed: string[]
  /** Changes no store makes (a kind that does not convert, a field made required without a default, another id kind), one line each. */
  refused: string[]
  /** The change loses stored values (a field dropped, the collection removed): it needs the caller's confirmation. */
  dropsData: boolean
}

/** What a plan meets in the records held, found by the store. */
export interface SchemaFindings {
  /** How many records the collection holds. */
  records: number
  /** How many values each dropped field loses (the records that hold one). */
  lost: Record<string, number>
  /** Converted fields whose values would not convert: the first records (id and value). */
  unconvertible: Array<{ field: string, records: Array<{ id: RecordId, value: unknown }> }>
  /** Added unique keys that records held break: the first records that share values. */
  duplicates: Array<{ fields: string[], records: RecordId[] }>
}

/** How many blocking records a finding names at most. */
export const MAX_BLOCKERS_SHOWN = 10

/** Kinds a field may be retyped to besides those that convert at start: a widening (an integer is a number). */
const WIDENINGS: ReadonlyArray<readonly [Kind, Kind]> = [['integer', 'number']]

/** Whether a field stored as `was` may become `now`, its values converted. */
export function convertible (was: Kind, now: Kind): boolean {
  return convertsFrom(now, was) || WIDENINGS.some(([from, to]) => from === was && to === now)
}

/**
 * The plan of changing `before` into `after` (either may be missing: a
 * collection created or removed). `renames` maps a new field's name to the
 * old one it takes the values of (the declaration's `"x-renamed-from"`).
 */
export function planChange (name: string, before: CollectionDeclaration | undefined, after: CollectionDeclaration | undefined, renames: Readonly<Record<string, string>> = {}): SchemaPlan {
  const plan: SchemaPlan = { collection: name, action: before === undefined ? 'create' : after === undefined ? 'remove' : 'change', added: [], dropped: [], renamed: [], converted: [], uniqueAdded: [], indexed: [], refused: [], dropsData: false }
  if (after === undefined) {
    plan.dropsData = before !== undefined
    return plan
  }
  if (before === undefined) {
    plan.indexed = Object.keys(after.fields).filter((f) => hasOwnIndex(after, f))
    plan.uniqueAdded = (after.unique ?? []).map((k) => [...k])
    return plan
  }
  if (before.ids !== after.ids) plan.refused.push(`ids: ${before.ids} → ${after.ids} (the ids of the records held cannot change kind)`)
  const takenOver = new Set<string>()
  for (const [field, now] of Object.entries(after.fields)) {
    let was = Object.hasOwn(before.fields, field) ? before.fields[field] : undefined
    let source = field
    const from = renames[field]
    if (was === undefined && from !== undefined && Object.hasOwn(before.fields, from) && !Object.hasOwn(after.fields, from)) {
      was = before.fields[from]
      source = from
      plan.renamed.push({ from, to: field })
      plan.indexed.push(field)
    }
    if (was === undefined) {
      if (now.required && now.default === undefined) plan.refused.push(`${field}: added as required without a default (the records held would have no value)`)
      plan.added.push(now.default === undefined ? { field } : { field, default: now.default })
      plan.indexed.push(field)
      continue
    }
    takenOver.add(source)
    if (now.type !== was.type) {
      if (convertible(was.type, now.type)) {
        plan.converted.push({ field, from: was.type, to: now.type })
        if (!plan.indexed.includes(field)) plan.indexed.push(field)
      } else plan.refused.push(`${field}: type ${was.type} → ${now.type} (its values do not convert)`)
    }
    if (now.required && !was.required) plan.refused.push(`${field}: optional → required (records held may lack it; declare it as a new field with a default)`)
    if (now.type === was.type && (!isDeepStrictEqual(now.items, was.items) || !isDeepStrictEqual(now.fields, was.fields))) plan.refused.push(`${field}: its items or nested fields change shape`)
  }
  plan.dropped = Object.keys(before.fields).filter((f) => !Object.hasOwn(after.fields, f) && !takenOver.has(f))
  plan.dropsData = plan.dropped.length > 0
  const held = new Set((before.unique ?? []).map((k) => k.join(',')))
  plan.uniqueAdded = (after.unique ?? []).filter((k) => !held.has(k.join(','))).map((k) => [...k])
  for (const field of Object.keys(after.fields)) {
    const newly = takenOver.has(field) && Object.hasOwn(before.fields, field) && !hasOwnIndex(before, field)
    if (newly && !plan.indexed.includes(field)) plan.indexed.push(field)
  }
  plan.indexed = plan.indexed.filter((f) => hasOwnIndex(after, f))
  return plan
}

/** Whether the plan changes what the stores keep (a change of checks alone, a new maxLength, does not). */
export function changesStorage (plan: SchemaPlan): boolean {
  return plan.action !== 'change' || plan.added.length + plan.dropped.length + plan.renamed.length + plan.converted.length + plan.uniqueAdded.length > 0
}

/** The blockers a plan meets: values that would not convert, duplicates of a new unique key. */
export function blocked (findings: SchemaFindings): boolean {
  return findings.unconvertible.length > 0 || findings.duplicates.length > 0
}
