import type { FieldReference, OnDelete } from '../../domain/index.js'
import { closestWord } from '../../lib/suggest.js'

/** What the checks read of a declared collection (declare.ts's CollectionSchema). */
interface Declared {
  declaration: { name: string, ids: string, references?: Readonly<Record<string, FieldReference>> }
  properties: Readonly<Record<string, Readonly<Record<string, unknown>> & { type: string }>>
}

/**
 * Reference fields of declarations (`"x-references": "authors"`): a field
 * that holds the id of a record of another collection, and what deleting
 * that record does (`"x-on-delete"`). Checked at start like every keyword:
 * the target must exist, the field's type must be its ids' type, and the
 * references must form no cycle (a cascade or a restrict around a cycle
 * could never be applied in one order).
 */

export const REFERENCE_KEYWORDS = ['x-references', 'x-on-delete']
export const ON_DELETE: readonly OnDelete[] = ['restrict', 'cascade', 'set-null']
/** What a list of references may do when a record it names is deleted. */
export const LIST_ON_DELETE: readonly OnDelete[] = ['restrict', 'remove']
/** The member that holds expanded records: a field may not take its name once references exist. */
export const EXPAND_MEMBER = 'expand'

/** The built-in collections a declaration may reference, with the JSON type of their ids. */
const BUILT_IN_TARGETS: Readonly<Record<string, 'integer' | 'string'>> = { students: 'integer', addresses: 'integer' }

type Fail = (path: string, message: string) => never

/** The reference fields of one collection's checked properties, or undefined when it has none. */
export function referencesOf (schemaPath: string, properties: Declared['properties'], required: readonly string[], fail: Fail): Record<string, FieldReference> | undefined {
  const references: Record<string, FieldReference> = {}
  for (const [field, schema] of Object.entries(properties)) {
    const path = `${schemaPath}.properties.${field}`
    if (schema.type === 'array') {
      const list = listReference(path, schema, fail)
      if (list !== undefined) references[field] = list
      continue
    }
    const target = schema['x-references']
    const onDelete = schema['x-on-delete']
    if (target === undefined) {
      if (onDelete !== undefined) fail(`${path}.x-on-delete`, 'applies only to a reference field: add "x-references": "<collection>"')
      continue
    }
    if (typeof target !== 'string') fail(`${path}.x-references`, `must be the name of a collection, got ${JSON.stringify(target)}`)
    if (schema.type !== 'integer' && schema.type !== 'string') fail(`${path}.type`, `a reference holds an id: "integer" (sequence ids, students, addresses) or "string" (uuid ids), not "${schema.type}"`)
    const action = onDelete === undefined ? 'restrict' : ON_DELETE.find((a) => a === onDelete)
    if (action === undefined) fail(`${path}.x-on-delete`, `${JSON.stringify(onDelete)} is not applied: use ${ON_DELETE.map((a) => `"${a}"`).join(', ')}`)
    if (action === 'set-null' && required.includes(field)) fail(`${path}.x-on-delete`, `"set-null" clears the field, but "${field}" is required: make it optional or use "restrict" or "cascade"`)
    references[field] = { collection: target, onDelete: action }
  }
  return Object.keys(references).length === 0 ? undefined : references
}

/**
 * A list of references (`{"type": "array", "items": {"type": "integer",
 * "x-references": "tags"}}`), a many-to-many relation: `x-on-delete` on the
 * list is `restrict` (the default) or `remove` (the deleted id is taken out
 * of each list). `cascade` is refused: deleting a book because one of its
 * tags went is rarely meant, and a list emptied by removes says it plainly.
 */
function listReference (path: string, schema: Readonly<Record<string, unknown>>, fail: Fail): FieldReference | undefined {
  const items = schema.items as Readonly<Record<string, unknown>> | undefined
  const target = items?.['x-references']
  const onDelete = schema['x-on-delete']
  if (items?.['x-on-delete'] !== undefined) fail(`${path}.items.x-on-delete`, 'belongs on the list: {"type": "array", "items": {…, "x-references": …}, "x-on-delete": "remove"}')
  if (target === undefined) {
    if (onDelete !== undefined) fail(`${path}.x-on-delete`, 'applies only to a list of references: add "x-references": "<collection>" to its items')
    return undefined
  }
  if (typeof target !== 'string') fail(`${path}.items.x-references`, `must be the name of a collection, got ${JSON.stringify(target)}`)
  if (items?.type !== 'integer' && items?.type !== 'string') fail(`${path}.items.type`, `a reference holds an id: "integer" (sequence ids, students, addresses) or "string" (uuid ids), not "${String(items?.type)}"`)
  const action = onDelete === undefined ? 'restrict' : LIST_ON_DELETE.find((a) => a === onDelete)
  if (action === undefined) fail(`${path}.x-on-delete`, `${JSON.stringify(onDelete)} is not applied to a list of references: use ${LIST_ON_DELETE.map((a) => `"${a}"`).join(' or ')} (the deleted id is taken out of each list)`)
  return { collection: target, onDelete: action, many: true }
}

/**
 * Checks every reference against the collections declared together and
 * those served already (`others`, which a collection created or changed
 * while the server runs may reference): targets, id types, cycles, the
 * `expand` member.
 */
export function checkReferences (collections: readonly Declared[], fail: Fail, others: readonly Declared[] = []): void {
  const byName = new Map([...others, ...collections].map((c) => [c.declaration.name, c]))
  const any = collections.some((c) => c.declaration.references !== undefined)
  if (!any) return
  const targets = [...Object.keys(BUILT_IN_TARGETS), ...byName.keys()]
  for (const collection of collections) {
    const { name } = collection.declaration
    const schemaPath = `collections.${name}.schema`
    if (Object.hasOwn(collection.properties, EXPAND_MEMBER)) {
      fail(`${schemaPath}.properties.${EXPAND_MEMBER}`, `"${EXPAND_MEMBER}" is the member that holds expanded references (?expand=…) once any collection has a reference field: rename the field`)
    }
    for (const [field, reference] of Object.entries(collection.declaration.references ?? {})) {
      const path = `${schemaPath}.properties.${field}`
      const target = byName.get(reference.collection)
      if (target === undefined && !Object.hasOwn(BUILT_IN_TARGETS, reference.collection)) {
        const guess = closestWord(reference.collection, targets)
        fail(`${path}.x-references`, `"${reference.collection}" is not a collection${guess === undefined ? '' : `; did you mean "${guess}"?`} (declared: ${targets.join(', ')})`)
      }
      const idType = target === undefined ? BUILT_IN_TARGETS[reference.collection] : target.declaration.ids === 'uuid' ? 'string' : 'integer'
      const schema = collection.properties[field]
      const type = reference.many === true ? (schema?.items as { type?: unknown } | undefined)?.type : schema?.type
      if (type !== idType) {
        const shape = `{"type": "${idType}", "x-references": "${reference.collection}"}`
        fail(`${path}${reference.many === true ? '.items' : ''}.type`, `${reference.collection} ids are ${idType === 'string' ? 'UUID strings' : 'integers'}: declare the reference as ${reference.many === true ? `{"type": "array", "items": ${shape}}` : shape}`)
      }
    }
  }
  refuseCycles(byName, fail)
}

/** A reference to its own collection, or a chain that comes back to where it started, cannot be applied in one order. */
function refuseCycles (byName: ReadonlyMap<string, Declared>, fail: Fail): void {
  const done = new Set<string>()
  const visit = (name: string, trail: string[]): void => {
    if (done.has(name)) return
    const collection = byName.get(name)
    if (collection === undefined) return
    for (const [field, reference] of Object.entries(collection.declaration.references ?? {})) {
      const at = trail.indexOf(reference.collection)
      if (reference.collection === name || at >= 0) {
        const cycle = [...trail.slice(at < 0 ? trail.length : at), name, reference.collection].join(' → ')
        fail(`collections.${name}.schema.properties.${field}.x-references`, `the references form a cycle (${cycle}), which rqs cannot apply (deletes and creates would have no order); keep the id in a plain field without x-references`)
      }
      visit(reference.collection, [...trail, name])
    }
    done.add(name)
  }
  for (const name of byName.keys()) visit(name, [])
}
