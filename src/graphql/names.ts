import type { ServedCollection } from '../data/collection.js'

/**
 * The GraphQL names of a collection, by one rule (written into the SDL's
 * descriptions too):
 * - the record type is the REST representation's title (`Student`,
 *   `Address`, `Book` for `books`), else the name in PascalCase;
 * - the list field is the collection's name in camelCase (`students`,
 *   `bookReviews` for `book-reviews`), the by-id field that name + `ById`
 *   (`studentsById`), the subscription that name + `Changed`;
 * - mutations are `create`, `replace`, `update` and `delete` + the type (`createStudent`);
 * - a name taken already (the album service's `albums`, `Album`, the shared
 *   types) gets `Records` / `Record` appended.
 */
export interface CollectionNames {
  type: string
  list: string
  byId: string
  changed: string
  create: string
  replace: string
  /** A merge patch (REST's PATCH). */
  update: string
  delete: string
  /** Groups with counts, sums, averages, least and greatest values (REST's GET /{collection}/aggregate). */
  aggregate: string
}

const TYPE_NAME = /^[A-Z][A-Za-z0-9]*$/

/** The types a collection makes: its type name with each of these appended. */
export const TYPE_SUFFIXES = ['', 'Input', 'Patch', 'Filter', 'Sort', 'Connection', 'Edge', 'Written', 'Change', 'AggregateGroup'] as const

/** `book-reviews` → `bookReviews`. */
export function camelOf (name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase())
}

function pascalOf (name: string): string {
  const camel = camelOf(name)
  return camel.charAt(0).toUpperCase() + camel.slice(1)
}

export function namesOf (collection: ServedCollection, takenTypes: ReadonlySet<string>, takenFields: ReadonlySet<string>): CollectionNames {
  const title = (collection.schema as { title?: unknown }).title
  let type = typeof title === 'string' && TYPE_NAME.test(title) ? title : pascalOf(collection.name)
  // Every type a collection makes starts with its type name: check the bare one and its derived names.
  if (TYPE_SUFFIXES.some((suffix) => takenTypes.has(type + suffix))) type += 'Record'
  let list = camelOf(collection.name)
  if (takenFields.has(list)) list += 'Records'
  return { type, list, byId: `${list}ById`, changed: `${list}Changed`, create: `create${type}`, replace: `replace${type}`, update: `update${type}`, delete: `delete${type}`, aggregate: `${list}Aggregate` }
}
