import type { MessageKey, Translate } from './i18n.js'
import type { AppCollection, AppProperty } from '../../src/services/app/page-config.js'
// The kinds are the server's own definitions (browser-safe: data and pure functions), bundled in.
import { KINDS, kindOfSchema, type JsonType, type Kind } from '../../src/domain/kinds/index.js'
import { valueAtPath } from '../../src/domain/paths.js'

/** A record as the page holds it: every id a string (address ids are 64-bit). */
export interface Rec {
  id: string
  [field: string]: string | number | boolean
}

/** A text of the page: a message of the page's tables, or the words a collection's declaration gives (one language). */
export type Text = MessageKey | { literal: string }

/** The words of a Text in the page's language. */
export function say (t: Translate, text: Text): string {
  return typeof text === 'string' ? t(text) : text.literal
}

export interface FieldSpec {
  key: string
  label: Text
  /**
   * integer and number: typed as text, sent as a number when it is one (otherwise as typed, so the service
   * names the mistake); boolean: chosen from yes, no or (optional fields) unset.
   */
  kind: Kind
  /** Part of the `q` search (the querying issue: every text field). */
  searchable: boolean
  /** Changed by an edit (an address keeps its name on update). */
  editable: boolean
  autocomplete?: string
  /** Limits the service checks, for the words of its refusals ("a whole number from 0 to 150"). */
  minimum?: number
  maximum?: number
  /** Bounds the value may not reach (a number's `exclusiveMaximum`; an integer's are made inclusive). */
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  maxLength?: number
  /** The declaration's words for a valid value (`x-hint`, else `description`), said when the value breaks its pattern. */
  hint?: string
  /** The values an `enum` allows: the form offers them in a select. */
  allowed?: readonly string[]
  /** The declared `default`, as the form's text: a new record's form starts with it. */
  initial?: string
  /** Set by the server (an automatic timestamp): shown, never in a form nor a body. */
  readOnly?: true
  /** false: the list is not sorted by it (the server refuses: an optional field of a declared collection). */
  sortable?: false
  /** A reference field: the collection its value names a record of (the list asks for it with `expand`). */
  references?: string
  /** A reference field: the field that labels a record of that collection (its `label` in GET /collections; `id`: its id). */
  targetLabel?: string
  /** The declaration requires it: forms mark it. */
  required?: true
}

/** A collection's name: students, addresses, or one the server's user declared. */
export type ResourceKey = string

/** Everything the generic view needs to know about one kind of record. */
export interface ResourceSpec {
  key: ResourceKey
  title: Text
  legend: Text
  addButton: Text
  searchHint: Text
  fields: readonly FieldSpec[]
  /** Ids may exceed 2^53: parse bodies exactly. */
  exactIds: boolean
  /** A client may choose a record's id (PUT creates at an id): an import keeps the ids of its file. */
  clientIds?: true
  /** How a record is named in messages ("Ada Lovelace"), and where a reference to it is shown. */
  describe: (record: Rec) => string
  /** The declaration's words about the collection, shown under its title. */
  description?: string
  /** The field that labels a record (the declaration's `x-label` or the server's rule; `id`: its id); absent: `describe` says. */
  labelField?: string
  /** The body of the POST that creates a record from the form. */
  createBody: (values: Record<string, string>) => Record<string, unknown>
  /** The body of the PUT that replaces a record after an edit. */
  replaceBody: (values: Record<string, string>) => Record<string, unknown>
  /** Query parameters every list read adds (`expand=author` for reference fields). */
  listParams?: string
}

/** "36" → 36; "" → absent (the service says it is required); anything else as typed (the service says why not). */
function integerValue (raw: string): unknown {
  const trimmed = raw.trim()
  if (trimmed === '') return undefined
  if (/^-?\d+$/.test(trimmed)) {
    const n = Number(trimmed)
    if (Number.isSafeInteger(n)) return n
  }
  return raw
}

/** "9.5" → 9.5; "" → absent; anything else as typed (the service says why not). */
function numberValue (raw: string): unknown {
  const trimmed = raw.trim()
  if (trimmed === '') return undefined
  const n = Number(trimmed)
  return Number.isFinite(n) && /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed) ? n : raw
}

function valueOf (field: FieldSpec, raw: string, optional: boolean): unknown {
  const input = KINDS[field.kind].app.input
  switch (input) {
    case 'integer': return integerValue(raw)
    case 'decimal': return numberValue(raw)
    case 'checkbox': return raw === '' ? undefined : raw === 'true'
    // An optional text left empty is not sent: the record then has no such field. A date-time is sent as typed (the service reads any offset).
    case 'text':
    case 'datetime': return optional && raw === '' ? undefined : raw
    // A tag input: values separated by commas or lines (issue 29, item 7).
    case 'list': return raw.trim() === '' ? (optional ? undefined : []) : raw.split(/[,\n]/).map((v) => v.trim()).filter((v) => v !== '')
    // An object's fieldset is its JSON text (minimal, issue 29 item 8): sent parsed, or as typed for the service to say why not.
    case 'object':
    case 'json': return raw.trim() === '' ? undefined : jsonOrText(raw)
    default: return input satisfies never
  }
}

function jsonOrText (raw: string): unknown {
  try { return JSON.parse(raw) as unknown } catch { return raw }
}

function bodyOf (fields: readonly FieldSpec[], values: Record<string, string>, only: (f: FieldSpec) => boolean, required?: ReadonlySet<string>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const field of fields) {
    if (!only(field) || field.readOnly === true) continue
    const value = valueOf(field, values[field.key] ?? '', required !== undefined && !required.has(field.key))
    if (value !== undefined) setPath(body, field.key, value)
  }
  return body
}

/** Sets a field, or the field inside an object its dotted key names, making the objects on the way. */
function setPath (body: Record<string, unknown>, key: string, value: unknown): void {
  const steps = key.split('.')
  let at = body
  for (const step of steps.slice(0, -1)) {
    if (typeof at[step] !== 'object' || at[step] === null) at[step] = {}
    at = at[step] as Record<string, unknown>
  }
  at[steps[steps.length - 1] as string] = value
}

const STUDENT_FIELDS: readonly FieldSpec[] = [
  { key: 'firstName', label: 'firstName', kind: 'string', required: true, searchable: true, editable: true, autocomplete: 'given-name', maxLength: 200 },
  { key: 'lastName', label: 'lastName', kind: 'string', required: true, searchable: true, editable: true, autocomplete: 'family-name', maxLength: 200 },
  // The students service's limits (src/services/students/schema.ts).
  { key: 'age', label: 'age', kind: 'integer', required: true, searchable: false, editable: true, autocomplete: 'off', minimum: 0, maximum: 2_147_483_647 }
]

const ADDRESS_FIELDS: readonly FieldSpec[] = [
  { key: 'name', label: 'name', kind: 'string', required: true, searchable: true, editable: false, autocomplete: 'name', maxLength: 200 },
  { key: 'city', label: 'city', kind: 'string', required: true, searchable: true, editable: true, autocomplete: 'address-level2', maxLength: 200 },
  { key: 'postalCode', label: 'postalCode', kind: 'string', required: true, searchable: true, editable: true, autocomplete: 'postal-code', maxLength: 32 }
]

export const STUDENTS: ResourceSpec = {
  key: 'students',
  title: 'students',
  legend: 'newStudent',
  addButton: 'addStudent',
  searchHint: 'searchHintStudents',
  fields: STUDENT_FIELDS,
  exactIds: false,
  describe: (r) => `${r.firstName ?? ''} ${r.lastName ?? ''}`.trim(),
  createBody: (values) => bodyOf(STUDENT_FIELDS, values, () => true),
  replaceBody: (values) => bodyOf(STUDENT_FIELDS, values, () => true)
}

export const ADDRESSES: ResourceSpec = {
  key: 'addresses',
  title: 'addresses',
  legend: 'newAddress',
  addButton: 'addAddress',
  searchHint: 'searchHintAddresses',
  fields: ADDRESS_FIELDS,
  exactIds: true,
  clientIds: true,
  describe: (r) => [r.name, r.city].filter((part) => part !== undefined && part !== '').join(', '),
  createBody: (values) => bodyOf(ADDRESS_FIELDS, values, () => true),
  // An update keeps the stored name (the address book's rule), so only the editable fields go.
  replaceBody: (values) => bodyOf(ADDRESS_FIELDS, values, (f) => f.editable)
}

/** "postalCode" → "Postal code": a label for a field whose declaration gives no title. */
function humanise (key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/**
 * The view of a collection the server's user declared (`rqs serve
 * --collections`), built from its schema: a column and a form field per
 * property, labelled by its `title` or its humanised name; the search reads
 * the string fields. Its words are the declaration's, in one language.
 */
export function specFromDeclaration (collection: AppCollection, targetLabels: ReadonlyMap<string, string> = new Map()): ResourceSpec {
  const required = new Set(collection.schema.required ?? [])
  // The server's sort keys (its query model); without them, its rule: the required fields.
  const sortKeys = new Set(collection.sort ?? required)
  const fields: FieldSpec[] = []
  // A nested object is a fieldset: one input per field inside it, keyed by its dotted path (issue 29, item 8).
  const add = (prefix: string, labels: readonly string[], properties: Record<string, NestedProperty>, requiredHere: ReadonlySet<string>, held: boolean): void => {
    for (const [name, property] of Object.entries(properties)) {
      const key = `${prefix}${name}`
      const label = [...labels, property.title ?? humanise(name)]
      if (property.type === 'object' && property.properties !== undefined) {
        add(`${key}.`, label, property.properties, new Set(property.required ?? []), held && requiredHere.has(name))
        continue
      }
      if (held && requiredHere.has(name)) required.add(key)
      fields.push({
        key,
        label: { literal: label.join(' › ') },
        kind: kindOf(property),
        // The search reads top-level text only; a nested text is filtered by its path.
        searchable: prefix === '' && KINDS[kindOf(property)].folded,
        editable: property['x-auto'] === undefined,
        autocomplete: 'off',
        ...limitsOf(kindOf(property), property),
        ...(property['x-auto'] === undefined ? {} : { readOnly: true as const }),
        ...(property.default === undefined || property.default === null ? {} : { initial: String(property.default) }),
        ...(sortKeys.has(key) ? {} : { sortable: false as const }),
        ...(property['x-references'] === undefined ? {} : { references: property['x-references'], ...targetLabelOf(targetLabels, property['x-references']) }),
        ...(required.has(key) ? { required: true as const } : {})
      })
    }
  }
  add('', [], collection.schema.properties, required, true)
  const references = fields.filter((f) => f.references !== undefined).map((f) => f.key)
  const title = collection.title ?? humanise(collection.name)
  // The server names the label field (`x-label`, else the first required string field, else the id); a page without it, the first text.
  const labelField = collection.label
  const describe = (r: Rec): string => {
    if (labelField !== undefined) return labelField !== 'id' && r[labelField] !== undefined && r[labelField] !== '' ? String(r[labelField]) : `#${r.id}`
    const first = fields.find((f) => f.kind === 'string' && r[f.key] !== undefined && r[f.key] !== '')
    return first === undefined ? `#${r.id}` : String(r[first.key])
  }
  return {
    key: collection.name,
    title: { literal: title },
    legend: 'newRecord',
    addButton: 'addRecord',
    searchHint: { literal: fields.filter((f) => f.searchable).map((f) => (f.label as { literal: string }).literal).join(', ') },
    fields,
    exactIds: false,
    describe,
    ...(collection.description === undefined || collection.description.trim() === '' ? {} : { description: collection.description }),
    ...(labelField === undefined ? {} : { labelField }),
    createBody: (values) => bodyOf(fields, values, () => true, required),
    replaceBody: (values) => bodyOf(fields, values, () => true, required),
    ...(references.length === 0 ? {} : { listParams: `expand=${references.join(',')}` })
  }
}

/** The label field of the collection a reference names, when the page knows it. */
function targetLabelOf (labels: ReadonlyMap<string, string>, collection: string): { targetLabel?: string } {
  const label = labels.get(collection)
  return label === undefined ? {} : { targetLabel: label }
}

/** The label field of each declared collection (GET /collections' `label`), for the references into it. */
export function labelFields (collections: readonly AppCollection[]): ReadonlyMap<string, string> {
  return new Map(collections.flatMap((c) => c.label === undefined ? [] : [[c.name, c.label] as const]))
}

/**
 * What a declared property's messages can state: its bounds (an integer's
 * made inclusive, the ±2^53 − 1 every integer has left unsaid), its length
 * cap, the values of its enum and the words for its pattern.
 */
export function limitsOf (kind: Kind, property: AppProperty): Partial<FieldSpec> {
  const limits: Partial<FieldSpec> = {}
  const said = (n: number | undefined): n is number => n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER
  const integer = KINDS[kind].app.input === 'integer'
  if (said(property.minimum)) limits.minimum = property.minimum
  if (said(property.maximum)) limits.maximum = property.maximum
  if (said(property.exclusiveMinimum)) {
    if (integer) limits.minimum = Math.floor(property.exclusiveMinimum) + 1
    else limits.exclusiveMinimum = property.exclusiveMinimum
  }
  if (said(property.exclusiveMaximum)) {
    if (integer) limits.maximum = Math.ceil(property.exclusiveMaximum) - 1
    else limits.exclusiveMaximum = property.exclusiveMaximum
  }
  if (property.maxLength !== undefined) limits.maxLength = property.maxLength
  if (property.enum !== undefined) limits.allowed = property.enum.flatMap((v) => v === null ? [] : [String(v)])
  const hint = property['x-hint'] ?? property.description
  if (property.pattern !== undefined && hint !== undefined && hint.trim() !== '') limits.hint = hint.trim()
  return limits
}

/** Whether the list may be sorted by a field (id always). */
export function isSortKey (spec: ResourceSpec, key: string): boolean {
  return key === 'id' || spec.fields.some((f) => f.key === key && f.sortable !== false)
}

/** The kind of a declared property, as the server reads its type and format (an unknown type: text). */
function kindOf (property: { type: string | string[], format?: string, properties?: unknown }): Kind {
  // A field that takes null: its one other type.
  const type = Array.isArray(property.type) ? property.type.find((t) => t !== 'null') ?? 'string' : property.type
  if (type === 'array') return 'list'
  if (type === 'object') return property.properties === undefined ? 'json' : 'object'
  return (['string', 'integer', 'number', 'boolean'] as string[]).includes(type) ? kindOfSchema(type as JsonType, property.format) : 'string'
}

/** A declared property that may be an object with fields of its own. */
type NestedProperty = AppProperty & { properties?: Record<string, NestedProperty>, required?: string[] }

/** The keyboard a field's text input asks a phone for. */
export function inputModeOf (field: FieldSpec): 'numeric' | 'decimal' | undefined {
  const input = KINDS[field.kind].app.input
  return input === 'integer' ? 'numeric' : input === 'decimal' ? 'decimal' : undefined
}

/**
 * A record from the service, or undefined when the value is not one. With the
 * collection's spec, its lists show as their values separated by commas (the
 * tag input's form) and its objects as their JSON; other non-scalars are dropped.
 */
export function toRecord (value: unknown, spec?: { fields: readonly FieldSpec[] }): Rec | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const raw = value as Record<string, unknown>
  if (typeof raw.id !== 'number' && typeof raw.id !== 'string') return undefined
  const record: Rec = { id: String(raw.id) }
  for (const [key, field] of Object.entries(raw)) {
    if (key !== 'id' && (typeof field === 'string' || typeof field === 'number' || typeof field === 'boolean')) record[key] = field
    else if (typeof field === 'object' && field !== null && spec?.fields.some((f) => f.key === key && KINDS[f.kind].composite !== undefined) === true) {
      record[key] = Array.isArray(field) ? field.map(String).join(', ') : JSON.stringify(field)
    }
  }
  // The fields inside objects, by dotted key (the form's fieldset and the table's columns).
  for (const f of spec?.fields ?? []) {
    if (!f.key.includes('.')) continue
    const value = valueAtPath(raw, f.key)
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') record[f.key] = value
    else if (Array.isArray(value)) record[f.key] = value.map(String).join(', ')
    else if (typeof value === 'object' && value !== null) record[f.key] = JSON.stringify(value)
  }
  if (typeof raw.expand === 'object' && raw.expand !== null) {
    const labels: Record<string, string> = {}
    for (const [key, target] of Object.entries(raw.expand)) {
      if (typeof target === 'object' && target !== null && !Array.isArray(target)) labels[key] = labelOf(target as Record<string, unknown>, spec?.fields.find((f) => f.key === key)?.targetLabel)
    }
    referenceLabels.set(record, labels)
  }
  return record
}

/** The labels of the records a record's references name, as the list's `expand` answered them. */
const referenceLabels = new WeakMap<Rec, Record<string, string>>()

/**
 * How a referenced record is named: its collection's label field (`field`,
 * `id` for its id) when the page knows it, else its first text field; its
 * id where the label is unset.
 */
export function labelOf (target: Record<string, unknown>, field?: string): string {
  if (field !== undefined) {
    const value = target[field]
    return field !== 'id' && (typeof value === 'string' || typeof value === 'number') && value !== '' ? String(value) : `#${String(target.id)}`
  }
  const text = Object.entries(target).find(([key, value]) => key !== 'id' && typeof value === 'string' && value !== '')
  return text === undefined ? `#${String(target.id)}` : text[1] as string
}

/**
 * A fresher copy of a record (a write's answer, a feed change: no `expand`)
 * keeps the labels of the references it still names, so its cells do not
 * fall back on ids until the list is read again.
 */
export function keepReferenceLabels (before: Rec, after: Rec): void {
  const labels = referenceLabels.get(before)
  if (labels === undefined || referenceLabels.has(after)) return
  const kept = Object.fromEntries(Object.entries(labels).filter(([key]) => before[key] === after[key]))
  if (Object.keys(kept).length > 0) referenceLabels.set(after, kept)
}

/** The label of the record a reference field names, when the list expanded it. */
export function referenceLabel (record: Rec, field: string): string | undefined {
  return referenceLabels.get(record)?.[field]
}

/** The form's text for each field of a record. */
export function formValues (spec: ResourceSpec, record: Rec): Record<string, string> {
  return Object.fromEntries(spec.fields.map((f) => [f.key, String(record[f.key] ?? '')]))
}
