import { KINDS, type Kind } from './kinds/index.js'

/**
 * Dotted field paths (issue 29, item 8): `address.city` names the `city` of
 * the nested object field `address`. Queries, sorts, cursors and CSV columns
 * name a nested scalar this way; a plain field name is a path of one step.
 * Objects nest at most MAX_DEPTH levels, so a path has at most that many steps
 * before its scalar.
 */

/** How deep objects nest: a record's object field is level 1. */
export const MAX_DEPTH = 3

/** The shape of a field as the stores need it (a StoredField's): its kind, whether it is required, and for composites their parts. */
export interface FieldShape {
  type: Kind
  required: boolean
  /** A list's item kind. */
  items?: Kind
  /** A nested object's fields, in declared order. */
  fields?: Readonly<Record<string, FieldShape>>
}

/** A scalar reached by a dotted path: its kind, and whether every step to it is required (then every record holds it). */
export interface NestedScalar {
  path: string
  steps: readonly string[]
  kind: Kind
  required: boolean
}

/** Whether a field name is a dotted path. */
export function isPath (field: string): boolean {
  return field.includes('.')
}

/** The value at a field or dotted path of a record (or of any object): undefined where a step is absent. */
export function valueAtPath (record: unknown, field: string): unknown {
  if (!isPath(field)) return (record as Record<string, unknown>)[field]
  let value: unknown = record
  for (const step of field.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, step)) return undefined
    value = (value as Record<string, unknown>)[step]
  }
  return value
}

/**
 * Every scalar inside the object fields, by dotted path, depth first in
 * declared order (lists and free JSON inside an object are no path: they
 * are read with their object).
 */
export function nestedScalars (fields: Readonly<Record<string, FieldShape>>): NestedScalar[] {
  const out: NestedScalar[] = []
  const visit = (prefix: readonly string[], shape: Readonly<Record<string, FieldShape>>, required: boolean): void => {
    for (const [name, f] of Object.entries(shape)) {
      const steps = [...prefix, name]
      const held = required && f.required
      if (f.type === 'object' && f.fields !== undefined) visit(steps, f.fields, held)
      else if (prefix.length > 0 && KINDS[f.type].composite === undefined) out.push({ path: steps.join('.'), steps, kind: f.type, required: held })
    }
  }
  visit([], fields, true)
  return out
}

/**
 * An object value with its members in declared order, recursively (PostgreSQL's
 * jsonb keeps its own order): every store answers an object as declared.
 */
export function inDeclaredOrder (value: unknown, fields: Readonly<Record<string, FieldShape>>): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const source = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const [name, f] of Object.entries(fields)) {
    if (!Object.hasOwn(source, name) || source[name] === null || source[name] === undefined) continue
    out[name] = f.fields === undefined ? source[name] : inDeclaredOrder(source[name], f.fields)
  }
  return out
}

/**
 * What a declaration changes inside a composite field against its stored
 * shape (a list's item kind, an object's fields at any depth), one line each
 * as the start's refusal lists them. A new optional field inside an object is
 * no change (stored objects simply lack it); anything else would reinterpret
 * stored values. A shape registered before shapes were kept is not compared.
 */
export function shapeChanges (path: string, was: FieldShape, now: FieldShape): string[] {
  if (was.type !== now.type) return []
  if (was.items !== undefined && now.items !== undefined && was.items !== now.items) return [`${path}: items ${was.items} → ${now.items}`]
  if (was.fields === undefined || now.fields === undefined) return []
  const changes: string[] = []
  for (const [name, before] of Object.entries(was.fields)) {
    const after = Object.hasOwn(now.fields, name) ? now.fields[name] : undefined
    const at = `${path}.${name}`
    if (after === undefined) changes.push(`${at}: removed`)
    else if (after.type !== before.type) changes.push(`${at}: type ${before.type} → ${after.type}`)
    else {
      if (after.required !== before.required) changes.push(`${at}: ${before.required ? 'required → optional' : 'optional → required'}`)
      changes.push(...shapeChanges(at, before, after))
    }
  }
  for (const [name, after] of Object.entries(now.fields)) {
    if (!Object.hasOwn(was.fields, name) && after.required) changes.push(`${path}.${name}: added as required`)
  }
  return changes
}
