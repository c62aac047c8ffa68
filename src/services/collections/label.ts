import { closestWord } from '../../lib/suggest.js'

/**
 * The field that names a collection's records where a reference to one is
 * shown (the web app's cells, pickers and record pages): the declaration's
 * collection-level `"x-label": "<field>"`, a string field of its own; without
 * one the first required string field; without that the id.
 */
export const LABEL = 'x-label'

/** What a label is checked against: the record's fields as JSON Schema, and which are required. */
interface LabelledFields {
  properties: Readonly<Record<string, { type?: unknown }>>
  required: readonly string[]
}

/**
 * The declared label field, checked: a top-level string field. A name an
 * earlier declaration used follows its rename (`"x-renamed-from"`), so a
 * change that renames the label field keeps it; one that drops it is refused
 * here, naming the fields that may label.
 */
export function declaredLabel (path: string, value: unknown, fields: LabelledFields, renamedFrom: Readonly<Record<string, string>>, fail: (path: string, message: string) => never): string | undefined {
  if (value === undefined) return undefined
  const texts = Object.keys(fields.properties).filter((name) => isText(fields.properties[name]))
  const which = texts.length === 0 ? 'the collection has no string field: leave "x-label" out and its records are named by their id' : `one of ${texts.map((t) => `"${t}"`).join(', ')}`
  if (typeof value !== 'string') fail(path, `must name the string field that labels a record, ${which}`)
  const name = Object.hasOwn(fields.properties, value) ? value : Object.keys(renamedFrom).find((field) => renamedFrom[field] === value)
  if (name === undefined) {
    const guess = closestWord(value, texts)
    fail(path, `"${value}" is not a declared field${guess === undefined ? '' : `; did you mean "${guess}"?`} (a label is ${which})`)
  }
  const type = fields.properties[name]?.type
  if (!isText(fields.properties[name])) fail(path, `"${name}" is ${article(type)} field: a label is a string field, ${which}`)
  return name
}

/** The field that labels a record: the declared one, else the first required string field, else `id`. */
export function labelFieldOf (fields: LabelledFields & { label?: string }): string {
  return fields.label ?? fields.required.find((name) => name !== 'id' && isText(fields.properties[name])) ?? 'id'
}

/** A string field (one that also takes null included). */
function isText (field: { type?: unknown } | undefined): boolean {
  const type = field?.type
  return type === 'string' || (Array.isArray(type) && type.includes('string'))
}

function article (type: unknown): string {
  const name = Array.isArray(type) ? String(type.find((t) => t !== 'null')) : String(type)
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`
}
