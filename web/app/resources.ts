import type { MessageKey } from './i18n.js'

/** A record as the page holds it: every id a string (address ids are 64-bit). */
export interface Rec {
  id: string
  [field: string]: string | number
}

export interface FieldSpec {
  key: string
  label: MessageKey
  /** integer: typed as text, sent as a number when it is one (otherwise as typed, so the service names the mistake). */
  kind: 'text' | 'integer'
  /** Part of the `q` search (the querying issue: every text field). */
  searchable: boolean
  /** Changed by an edit (an address keeps its name on update). */
  editable: boolean
  autocomplete?: string
}

export type ResourceKey = 'students' | 'addresses'

/** Everything the generic view needs to know about one kind of record. */
export interface ResourceSpec {
  key: ResourceKey
  title: MessageKey
  legend: MessageKey
  addButton: MessageKey
  searchHint: MessageKey
  fields: readonly FieldSpec[]
  /** Ids may exceed 2^53: parse bodies exactly. */
  exactIds: boolean
  /** How a record is named in messages ("Ada Lovelace"). */
  describe: (record: Rec) => string
  /** The body of the POST that creates a record from the form. */
  createBody: (values: Record<string, string>) => Record<string, unknown>
  /** The body of the PUT that replaces a record after an edit. */
  replaceBody: (values: Record<string, string>) => Record<string, unknown>
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

function bodyOf (fields: readonly FieldSpec[], values: Record<string, string>, only: (f: FieldSpec) => boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const field of fields) {
    if (!only(field)) continue
    const raw = values[field.key] ?? ''
    const value = field.kind === 'integer' ? integerValue(raw) : raw
    if (value !== undefined) body[field.key] = value
  }
  return body
}

const STUDENT_FIELDS: readonly FieldSpec[] = [
  { key: 'firstName', label: 'firstName', kind: 'text', searchable: true, editable: true, autocomplete: 'given-name' },
  { key: 'lastName', label: 'lastName', kind: 'text', searchable: true, editable: true, autocomplete: 'family-name' },
  { key: 'age', label: 'age', kind: 'integer', searchable: false, editable: true, autocomplete: 'off' }
]

const ADDRESS_FIELDS: readonly FieldSpec[] = [
  { key: 'name', label: 'name', kind: 'text', searchable: true, editable: false, autocomplete: 'name' },
  { key: 'city', label: 'city', kind: 'text', searchable: true, editable: true, autocomplete: 'address-level2' },
  { key: 'postalCode', label: 'postalCode', kind: 'text', searchable: true, editable: true, autocomplete: 'postal-code' }
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
  describe: (r) => [r.name, r.city].filter((part) => part !== undefined && part !== '').join(', '),
  createBody: (values) => bodyOf(ADDRESS_FIELDS, values, () => true),
  // An update keeps the stored name (the address book's rule), so only the editable fields go.
  replaceBody: (values) => bodyOf(ADDRESS_FIELDS, values, (f) => f.editable)
}

/** A record from the service, or undefined when the value is not one. */
export function toRecord (value: unknown): Rec | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const raw = value as Record<string, unknown>
  if (typeof raw.id !== 'number' && typeof raw.id !== 'string') return undefined
  const record: Rec = { id: String(raw.id) }
  for (const [key, field] of Object.entries(raw)) {
    if (key !== 'id' && (typeof field === 'string' || typeof field === 'number')) record[key] = field
  }
  return record
}

/** The form's text for each field of a record. */
export function formValues (spec: ResourceSpec, record: Rec): Record<string, string> {
  return Object.fromEntries(spec.fields.map((f) => [f.key, String(record[f.key] ?? '')]))
}
