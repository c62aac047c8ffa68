// The kinds are the server's own definitions (browser-safe: data and pure functions), bundled in.
import { KIND_NAMES, KINDS, kindOfSchema, type JsonType, type Kind } from '../../src/domain/kinds/index.js'

/**
 * The schema editor's model (components/SchemaEditor.tsx): a collection's
 * declaration as rows of fields the form edits, and back. Every declarable
 * field kind of the registry gets a form of its own: the constraints its
 * declaration takes (`KINDS[kind].declaration.keywords`).
 */

/** One field as the form holds it: every value as typed. */
export interface FieldDraft {
  /** Stable across renames, for the form's keys. */
  row: number
  name: string
  /** The name it had in the declaration read: a different `name` is a rename (`"x-renamed-from"`). */
  original?: string
  kind: Kind
  required: boolean
  /** The kind's constraints by keyword, as typed ('' leaves one out). */
  constraints: Record<string, string>
  /** The declared default as typed ('' for none). */
  initial: string
  /** Whatever else the property said (title, description…), kept as it was. */
  rest: Record<string, unknown>
}

export interface CollectionDraft {
  fields: FieldDraft[]
  /** How records get their ids (a new collection chooses; a change keeps it: another id kind is refused). */
  ids: 'sequence' | 'uuid'
  /** The unique keys as typed: keys separated by `;`, a key's fields by `,` ("isbn; title, year"). */
  unique: string
  /** The row of the field that labels a record (`"x-label"`); absent: the server's rule (the first required text field, else the id). */
  label?: number
  /** The rest of the declaration (description…), kept as read. */
  rest: Record<string, unknown>
}

/** The draft of a new collection: one empty field, sequence ids. */
export function newCollection (): CollectionDraft {
  return { fields: [newField()], ids: 'sequence', unique: '', rest: {} }
}

/** The kinds a field can be declared with, in the registry's order. */
export const DECLARABLE_KINDS: readonly Kind[] = KIND_NAMES.filter((k) => KINDS[k].declaration !== undefined)

/** The constraints a kind's form offers: its declaration's keywords, its own format aside. */
export function constraintsOf (kind: Kind): readonly string[] {
  const declaration = KINDS[kind].declaration
  if (declaration === undefined) return []
  return declaration.keywords.filter((k) => !(k === 'format' && declaration.format !== undefined))
}

/** Keywords whose value is a number. */
const NUMERIC = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength'])
/** Keywords the form sets itself, not kept from the property read. */
const MANAGED = new Set(['type', 'format', 'default', 'x-renamed-from', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'enum'])

let rows = 0

/** A new, empty field of the plain text kind. */
export function newField (): FieldDraft {
  return { row: ++rows, name: '', kind: 'string', required: false, constraints: {}, initial: '', rest: {} }
}

/** A declaration as read (GET /collections/{name}) as the form's rows. */
export function draftOf (declaration: Record<string, unknown> | undefined): CollectionDraft {
  if (declaration === undefined) return newCollection()
  const { schema, ids, unique, 'x-label': label, ...rest } = declaration
  const object = (schema ?? {}) as { properties?: Record<string, Record<string, unknown>>, required?: string[] }
  const required = new Set(object.required ?? [])
  const fields = Object.entries(object.properties ?? {}).map(([name, property]): FieldDraft => {
    const type = (Array.isArray(property.type) ? property.type.find((t) => t !== 'null') : property.type) as JsonType
    const kind = kindOfSchema(type, property.format)
    const constraints: Record<string, string> = {}
    for (const keyword of constraintsOf(kind)) {
      const value = property[keyword]
      if (value === undefined) continue
      constraints[keyword] = Array.isArray(value) ? value.join(', ') : String(value)
    }
    const kept = Object.fromEntries(Object.entries(property).filter(([k]) => !MANAGED.has(k)))
    return { row: ++rows, name, original: name, kind, required: required.has(name), constraints, initial: property.default === undefined ? '' : String(property.default), rest: kept }
  })
  const keys = Array.isArray(unique) ? (unique as unknown[][]).map((key) => key.join(', ')).join('; ') : ''
  // The label names a field by its name, or by the name a field was renamed from (the server follows the rename too).
  const labelled = typeof label !== 'string' ? undefined : fields.find((f) => f.name === label) ?? fields.find((f) => object.properties?.[f.name]?.['x-renamed-from'] === label)
  return { fields, ids: ids === 'uuid' ? 'uuid' : 'sequence', unique: keys, ...(labelled === undefined ? {} : { label: labelled.row }), rest }
}

/** Whether a field of this kind may label a record: a string field. */
export function labelsRecords (kind: Kind): boolean {
  return KINDS[kind].declaration?.type === 'string'
}

/** The value a typed text stands for in a field of `kind`: a number or a boolean where the kind's type is one. */
function typed (kind: Kind, text: string): unknown {
  const type = KINDS[kind].declaration?.type
  if (type === 'integer' || type === 'number') return Number.isFinite(Number(text)) && text.trim() !== '' ? Number(text) : text
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text
  return text
}

/** The declaration the form's rows say, for POST /collections, PUT and …/plan (the server checks it and names any mistake). */
export function declarationOf (draft: CollectionDraft): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (const field of draft.fields) {
    const declaration = KINDS[field.kind].declaration
    const property: Record<string, unknown> = { ...field.rest, type: declaration?.type ?? 'string' }
    if (declaration?.format !== undefined) property.format = declaration.format
    for (const keyword of constraintsOf(field.kind)) {
      const text = (field.constraints[keyword] ?? '').trim()
      if (text === '') continue
      if (keyword === 'enum') property.enum = text.split(',').map((v) => typed(field.kind, v.trim()))
      else property[keyword] = NUMERIC.has(keyword) && Number.isFinite(Number(text)) ? Number(text) : text
    }
    if (field.initial !== '') property.default = typed(field.kind, field.initial)
    if (field.original !== undefined && field.original !== field.name) property['x-renamed-from'] = field.original
    properties[field.name] = property
    if (field.required) required.push(field.name)
  }
  // A unique key names fields by their new names (the server checks them and says which one is no field).
  // The label field by its name now; a removed one (or one made another kind) leaves the server's rule.
  const label = draft.fields.find((f) => f.row === draft.label && f.name !== '' && labelsRecords(f.kind))
  const unique = draft.unique.split(';').map((key) => key.split(',').map((f) => f.trim()).filter((f) => f !== '')).filter((key) => key.length > 0)
  return { ...draft.rest, schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) }, ids: draft.ids, ...(unique.length > 0 ? { unique } : {}), ...(label === undefined ? {} : { 'x-label': label.name }) }
}
