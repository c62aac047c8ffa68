import {
  GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType,
  GraphQLString, type GraphQLFieldConfig, type GraphQLFieldConfigMap, type GraphQLInputType, type GraphQLOutputType, type GraphQLScalarType
} from 'graphql'
import type { ServedCollection } from '../data/collection.js'
import { KIND_NAMES, KINDS, MAX_FILTER_COMPARISONS, MAX_FILTER_DEPTH, positionOf, type Change, type RecordFilter, type RecordStore, type SortKey, type StoredField, type StoredRecord, type RecordStores } from '../domain/index.js'
import { ChangeFilter, encodeCursor, fieldParam, MAX_IN_VALUES, type FieldParam } from '../records/index.js'
import type { ChangeStreams } from './changes.js'
import { codedError } from './errors.js'
import { allowedValues, enumOf } from './enums.js'
import { filterExpression, readListArgs, sortableFields, type FilterArg, type ListArgs, type ThroughPaths } from './lists.js'
import { namesOf, TYPE_SUFFIXES, type CollectionNames } from './names.js'
import { ownScalar, SafeInt } from './scalars.js'
import { CollectionWrites, type WriteContext } from './writes.js'
import { readsOf, relationFields, type RelationTypes } from './relations.js'
import { relationsOf } from '../records/index.js'
import { aggregateField } from './aggregates.js'
import { accessOfStores, callerIn, listedAggregate, listedFilter, viewable } from './access.js'
import { ChangeAccess } from '../records/index.js'
import { drain } from './turns.js'

/**
 * The GraphQL fields of every collection, generated from its declaration and
 * REST model (built-in and declared alike): a list field (filter, sort,
 * cursor paging, a connection whose totalCount is counted only when asked),
 * a by-id field, create / replace / delete mutations and a `…Changed`
 * subscription. Each list field is one store query (and one count when
 * totalCount is selected), pushed down into SQL as REST's lists are.
 */

/** What every resolver gets: the HTTP request (its headers, its token) and whether tokens are checked. */
export type GraphQLContext = WriteContext

export interface CollectionParts {
  query: GraphQLFieldConfigMap<unknown, GraphQLContext>
  mutation: GraphQLFieldConfigMap<unknown, GraphQLContext>
  subscription: GraphQLFieldConfigMap<unknown, GraphQLContext>
}

export interface CollectionSchemaOptions {
  collections: readonly ServedCollection[]
  stores: RecordStores
  streams: ChangeStreams
  /** Type and root field names in use already (the album service's). */
  takenTypes: ReadonlySet<string>
  takenFields: ReadonlySet<string>
}

const nonNull = <T extends GraphQLOutputType | GraphQLInputType>(type: T): GraphQLNonNull<T> => new GraphQLNonNull(type)

function filterType (name: string, type: GraphQLScalarType, ops: readonly string[]): GraphQLInputObjectType {
  const fields: Record<string, { type: GraphQLInputType, description?: string }> = {}
  for (const op of ops) fields[op] = { type }
  // Issue 31, item 4: REST's [in] and [null].
  fields.in = { type: new GraphQLList(nonNull(type)), description: `One of these values (at most ${MAX_IN_VALUES}), as REST's \`field[in]\`.` }
  fields.isNull = { type: GraphQLBoolean, description: '`true`: records without the field; `false`: records with it (REST\'s `field[null]`).' }
  return new GraphQLInputObjectType({ name, description: `Conditions on a field, as REST's \`field[op]=value\`: every one given must hold (a record without the field matches none but \`isNull: true\`). ${ops.includes('contains') ? '`contains` ignores case.' : ''}`.trim(), fields })
}

const ORDER_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']
const FILTERS = {
  text: filterType('StringFilter', GraphQLString, [...ORDER_OPS, 'contains']),
  int: filterType('IntFilter', GraphQLInt, ORDER_OPS),
  safeInt: filterType('SafeIntFilter', SafeInt, ORDER_OPS),
  number: filterType('FloatFilter', GraphQLFloat, ORDER_OPS),
  boolean: filterType('BooleanFilter', GraphQLBoolean, ['eq']),
  id: filterType('IDFilter', GraphQLID, [...ORDER_OPS, 'contains'])
}

/** The scalars by name, with their filter types: GraphQL's and rqs's, then those field kinds define (DateTime), built once. */
const SCALARS = new Map<string, { scalar: GraphQLScalarType, filter: GraphQLInputObjectType }>([
  ['String', { scalar: GraphQLString, filter: FILTERS.text }],
  ['Int', { scalar: GraphQLInt, filter: FILTERS.int }],
  ['SafeInt', { scalar: SafeInt, filter: FILTERS.safeInt }],
  ['Float', { scalar: GraphQLFloat, filter: FILTERS.number }],
  ['Boolean', { scalar: GraphQLBoolean, filter: FILTERS.boolean }],
  ['ID', { scalar: GraphQLID, filter: FILTERS.id }]
])
const BUILT_IN_SCALARS = [...SCALARS.keys()]
for (const kind of KIND_NAMES) {
  const spec = KINDS[kind].graphql({})
  if (!('parse' in spec) || SCALARS.has(spec.name)) continue
  const scalar = ownScalar(spec)
  SCALARS.set(spec.name, { scalar, filter: filterType(`${spec.name}Filter`, scalar, KINDS[kind].operators) })
}
/** The kinds' own scalars and their filter types (DateTime, DateTimeFilter). */
const KIND_TYPES = [...SCALARS].filter(([name]) => !BUILT_IN_SCALARS.includes(name)).flatMap(([, s]) => [s.scalar.name, s.filter.name])

/** A list field's filter type by its items' scalar (StringListFilter: `has`, `hasAny`), built once each. */
const LIST_FILTERS = new Map<string, GraphQLInputObjectType>()
function listFilterOf (scalar: GraphQLScalarType): GraphQLInputObjectType {
  let filter = LIST_FILTERS.get(scalar.name)
  if (filter === undefined) {
    filter = new GraphQLInputObjectType({
      name: `${scalar.name}ListFilter`,
      description: 'Conditions on a list, as REST\'s `field[has]=x` and `field[hasAny]=a,b`.',
      fields: { has: { type: scalar, description: 'The list holds this value.' }, hasAny: { type: new GraphQLList(nonNull(scalar)), description: 'The list holds one of these values.' } }
    })
    LIST_FILTERS.set(scalar.name, filter)
  }
  return filter
}

/** A dotted path's GraphQL name (`address.city` → `address__city`): field names hold no `_`, so the two never meet. */
export function graphqlPathName (field: string): string {
  return field.replace(/\./g, '__')
}

/**
 * The GraphQL types of a field's values: its scalar; a list of its items'
 * scalar; for a nested object an object type and an input type of its own
 * (`PlaceAddress`, `PlaceAddressInput`), named after the record type and the
 * field, whose fields are typed the same way (issue 29, item 8).
 */
function valueTypesOf (stored: StoredField, param: FieldParam, name: string): { output: GraphQLOutputType, input: GraphQLInputType } {
  if (stored.items !== undefined) {
    const item = scalarOf({ kind: stored.items, description: '' }).scalar
    return { output: new GraphQLList(nonNull(item)), input: new GraphQLList(nonNull(item)) }
  }
  if (stored.type === 'object' && stored.fields !== undefined) {
    const parts = Object.entries(stored.fields).map(([field, f]) => [field, f, valueTypesOf(f, { kind: f.type, description: '' }, `${name}${field.charAt(0).toUpperCase()}${field.slice(1)}`)] as const)
    return {
      output: new GraphQLObjectType({ name, fields: () => Object.fromEntries(parts.map(([field, f, types]) => [field, { type: f.required ? nonNull(types.output) : types.output }])) }),
      // Nullable like a record's input fields: REST's check names what is missing (FIELD_REQUIRED).
      input: new GraphQLInputObjectType({ name: `${name}Input`, fields: () => Object.fromEntries(parts.map(([field, , types]) => [field, { type: types.input }])) })
    }
  }
  const { scalar } = scalarOf(param)
  return { output: scalar, input: scalar }
}

/** The scalar of a field's values and its filter type, by its kind and bounds. */
function scalarOf (param: FieldParam): { scalar: GraphQLScalarType, filter: GraphQLInputObjectType } {
  const named = SCALARS.get(KINDS[param.kind].graphql(param).name)
  if (named === undefined) throw new RangeError(`no GraphQL scalar for the kind ${param.kind}`)
  return named
}

const PageInfo = new GraphQLObjectType({
  name: 'PageInfo',
  description: 'Where a page ends: pass `endCursor` as `after` for the next one (REST\'s cursor: the same text continues the same list there).',
  fields: {
    hasNextPage: { type: nonNull(GraphQLBoolean) },
    endCursor: { type: GraphQLString, description: 'The cursor of the last record of the page; null for an empty page.' }
  }
})

const WriteOutcome = new GraphQLEnumType({
  name: 'WriteOutcome',
  description: 'What a create or replace did.',
  values: {
    CREATED: { description: 'A new record.' },
    REPLACED: { description: 'A record held the id and was replaced (a replace; a student create under the count id rule, REST\'s Replaced-Record).' }
  }
})

const ChangeKind = new GraphQLEnumType({
  name: 'ChangeKind',
  values: { CREATED: { value: 'created' }, REPLACED: { value: 'replaced' }, DELETED: { value: 'deleted' } }
})

/** Names the shared types take, which no collection's may. */
export const SHARED_TYPES = ['StringFilter', 'IntFilter', 'SafeIntFilter', 'FloatFilter', 'BooleanFilter', 'IDFilter', 'PageInfo', 'WriteOutcome', 'ChangeKind', 'SafeInt', 'Query', 'Mutation', 'Subscription', ...KIND_TYPES]

interface Connection {
  page: readonly StoredRecord[]
  more: boolean
  sort: readonly SortKey[]
  filter: RecordFilter
}

/** Runs a resolver, giving whatever it throws REST's code and words. */
function coded<A, T> (resolve: (args: A, context: GraphQLContext) => Promise<T>): (source: unknown, args: A, context: GraphQLContext) => Promise<T> {
  return async (_source, args, context) => {
    try {
      return await resolve(args, context)
    } catch (err) {
      throw codedError(err, context.request)
    }
  }
}

export function collectionParts (options: CollectionSchemaOptions): CollectionParts {
  return drain(collectionPartsInSteps(options))
}

/**
 * collectionParts a collection at a time (./turns.ts: at the declaration
 * limits the whole is tens of milliseconds): it yields each collection's own
 * root fields, and returns them all.
 */
export function * collectionPartsInSteps (options: CollectionSchemaOptions): Generator<CollectionParts, CollectionParts> {
  const parts: CollectionParts = { query: {}, mutation: {}, subscription: {} }
  const takenTypes = new Set([...options.takenTypes, ...SHARED_TYPES])
  const takenFields = new Set(options.takenFields)
  const stores = options.stores.collections
  const relations: RelationTypes = { types: new Map(), filters: new Map(), stores, relations: relationsOf([...stores.values()].map((s) => s.declaration)) }
  for (const collection of options.collections) {
    const store = options.stores.collections.get(collection.name)
    if (store === undefined) continue
    const names = namesOf(collection, takenTypes, takenFields)
    for (const suffix of TYPE_SUFFIXES) takenTypes.add(names.type + suffix)
    for (const field of [names.list, names.byId, names.changed, names.create, names.replace, names.update, names.delete, names.aggregate]) takenFields.add(field)
    const own: CollectionParts = { query: {}, mutation: {}, subscription: {} }
    addCollection(own, collection, store, names, options.streams, takenTypes, relations)
    Object.assign(parts.query, own.query)
    Object.assign(parts.mutation, own.mutation)
    Object.assign(parts.subscription, own.subscription)
    yield own
  }
  return parts
}

/**
 * The filter fields through each reference field of a collection: the
 * referenced collection's fields by path (`author__name`, REST's
 * `author.name`), each with its own operators; read as a semi-join.
 */
function referenceFilterFields (collection: string, { relations, filters }: RelationTypes): Record<string, { type: GraphQLInputType, description?: string }> {
  const fields: Record<string, { type: GraphQLInputType, description?: string }> = {}
  for (const relation of relations.get(collection)?.values() ?? []) {
    const target = relation.kind === 'one' ? filters.get(relation.target) : undefined
    if (target === undefined) continue
    for (const [field, param] of Object.entries(target.model.fields as Readonly<Record<string, FieldParam>>)) {
      if (field === 'id' || param.items !== undefined || KINDS[param.kind].composite !== undefined) continue
      fields[`${relation.name}__${graphqlPathName(field)}`] = { type: scalarOf(param).filter, description: `Only records whose ${relation.field} names a record of ${relation.target} whose ${field} matches (REST's \`${relation.name}.${field}\`); at the top of a list's filter.` }
    }
  }
  return fields
}

/** The paths through `collection`'s reference fields its list filter reads (see referenceFilterFields). */
function throughPaths (collection: string, { relations, filters }: RelationTypes): ThroughPaths {
  return (path) => {
    const dot = path.indexOf('.')
    const relation = dot < 0 ? undefined : relations.get(collection)?.get(path.slice(0, dot))
    const target = relation?.kind === 'one' ? filters.get(relation.target) : undefined
    if (relation === undefined || target === undefined) return undefined
    const inner = path.slice(dot + 1)
    return fieldParam(target.model, inner) === undefined ? undefined : { field: relation.field, target: relation.target, model: target.model, inner }
  }
}

function addCollection (parts: CollectionParts, collection: ServedCollection, store: RecordStore, names: CollectionNames, streams: ChangeStreams, takenTypes: Set<string>, relations: RelationTypes): void {
  const { declaration } = store
  const model = collection.model
  const params = model.fields as Readonly<Record<string, FieldParam>>
  const writes = new CollectionWrites(collection, store)
  const name = collection.name

  const recordFields: GraphQLFieldConfigMap<StoredRecord, GraphQLContext> = {
    id: { type: nonNull(GraphQLID), description: declaration.ids === 'int64' ? 'A 64-bit id, as decimal text (exact beyond 2^53).' : undefined, resolve: (r) => String(r.id) }
  }
  const inputFields: Record<string, { type: GraphQLInputType, description?: string }> = {}
  const access = declaration.access
  const guarded = new Set(access?.guarded ?? [])
  for (const [field, stored] of Object.entries(declaration.fields)) {
    const param = params[field]
    // A list is a GraphQL list of its items' scalar, an object a type of its own, free JSON the JSON scalar.
    const types = valueTypesOf(stored, param ?? { kind: stored.type, description: '' }, `${names.type}${field.charAt(0).toUpperCase()}${field.slice(1)}`)
    // A declared enum: its own GraphQL enum type where its values can be one, else the scalar with the values in words.
    const own = enumOf(names.type, field, param, takenTypes)
    const output = own ?? types.output
    const values = own === undefined ? allowedValues(param) : ''
    recordFields[field] = { type: stored.required ? nonNull(output) : output, ...(values === '' ? {} : { description: values.trim() }) }
    // A field only some callers see (`x-read`) is nullable, and null for those who may not see it, wherever a record appears.
    if (guarded.has(field)) recordFields[field] = { type: output, description: `${values.trim()} Null for callers its x-read rule does not let see it.`.trim(), resolve: (r, _args, context) => (access?.visibleRecord(r, callerIn(context)) as Partial<StoredRecord> | undefined)?.[field] ?? null }
    // A field the server sets (an automatic timestamp) is no input.
    if (param?.readOnly === true) continue
    const keptNote = declaration.keptOnUpdate.includes(field) ? ' A replace may leave it out to keep the stored value (it is needed when the replace creates the record).' : ''
    inputFields[field] = { type: own ?? types.input, description: `${stored.required ? 'Required (FIELD_REQUIRED otherwise).' : 'Optional.'}${keptNote}${values}` }
  }
  const etagOf = collection.etag
  if (etagOf !== undefined && !Object.hasOwn(recordFields, 'etag')) {
    recordFields.etag = { type: nonNull(GraphQLString), description: 'The record\'s ETag as REST sends it: pass it as `ifMatch` to replace or delete only this version.', resolve: (r) => etagOf.call(collection, r) }
  }
  // A thunk: a reference field is typed as its target's record type, built with another collection (./relations.ts).
  const Record = new GraphQLObjectType<StoredRecord, GraphQLContext>({ name: names.type, description: `A record of ${name}, as REST represents it.`, fields: () => ({ ...recordFields, ...relationFields(name, relations) }) })
  relations.types.set(name, Record)
  const Input = new GraphQLInputObjectType({
    name: `${names.type}Input`,
    description: `The fields of a record of ${name}, checked with REST's rules (a failure is VALIDATION_FAILED with REST's entries in extensions.errors).`,
    fields: inputFields
  })

  const patchFields: Record<string, { type: GraphQLInputType, description?: string }> = {}
  for (const [field, { type }] of Object.entries(inputFields)) {
    const kept = declaration.keptOnUpdate.includes(field) ? ' Kept on update: only its stored value is accepted.' : ''
    patchFields[field] = { type, description: `Left out: kept. ${declaration.fields[field]?.required === true ? 'Required: null is FIELD_REQUIRED.' : 'Optional: null removes it.'}${kept}` }
  }
  const Patch = new GraphQLInputObjectType({
    name: `${names.type}Patch`,
    description: `Some fields of a record of ${name}, as REST's PATCH takes them (a merge patch: null removes an optional field); the merged record is checked with REST's rules.`,
    fields: patchFields
  })

  const filterFields: Record<string, { type: GraphQLInputType, description?: string }> = {}
  for (const [field, param] of Object.entries(params)) {
    const description = param.description === '' ? undefined : param.description
    if (param.items !== undefined) filterFields[field] = { type: listFilterOf(scalarOf({ kind: param.items, description: '' }).scalar), description }
    else if (KINDS[param.kind].composite === undefined) filterFields[graphqlPathName(field)] = { type: field === 'id' ? FILTERS.id : scalarOf(param).filter, description }
  }
  filterFields.q = { type: GraphQLString, description: 'Only records with this text in any text field, ignoring case (REST\'s `q`).' }
  const Filter: GraphQLInputObjectType = new GraphQLInputObjectType({
    name: `${names.type}Filter`,
    description: `Which records of ${name}: every condition given holds (REST's filters); \`and\`, \`or\` and \`not\` combine further filters as REST's \`filter=\` expressions do (at most ${MAX_FILTER_DEPTH} levels, ${MAX_FILTER_COMPARISONS} conditions).`,
    // A thunk: the combinators take this type itself.
    fields: () => ({
      ...filterFields,
      ...referenceFilterFields(name, relations),
      and: { type: new GraphQLList(nonNull(Filter)), description: 'Every one of these filters holds.' },
      or: { type: new GraphQLList(nonNull(Filter)), description: 'At least one of these filters holds.' },
      not: { type: Filter, description: 'This filter does not hold (a record without a field it compares counts as not matching it).' }
    })
  })
  const through = throughPaths(name, relations)

  const sortValues: Record<string, { value: SortKey }> = {}
  for (const field of sortableFields(model)) {
    sortValues[`${graphqlPathName(field)}_ASC`] = { value: { field, descending: false } }
    sortValues[`${graphqlPathName(field)}_DESC`] = { value: { field, descending: true } }
  }
  const Sort = new GraphQLEnumType({ name: `${names.type}Sort`, description: `Sort keys of ${name} (REST's \`sort\`: the id and the required fields); ties are broken by id.`, values: sortValues })
  relations.filters.set(name, { type: Filter, sort: Sort, model, through })
  // A filter through a reference is narrowed by the rules of the collection it leads to.
  const accessOf = accessOfStores(relations.stores)

  const Edge = new GraphQLObjectType<{ node: StoredRecord, sort: readonly SortKey[] }, GraphQLContext>({
    name: `${names.type}Edge`,
    fields: {
      node: { type: nonNull(Record) },
      cursor: { type: nonNull(GraphQLString), resolve: (edge) => encodeCursor(edge.sort, positionOf(edge.node, edge.sort)) }
    }
  })
  const Connection = new GraphQLObjectType<Connection, GraphQLContext>({
    name: `${names.type}Connection`,
    description: `A page of ${name}.`,
    fields: {
      edges: { type: nonNull(new GraphQLList(nonNull(Edge))), resolve: (c) => c.page.map((node) => ({ node, sort: c.sort })) },
      nodes: { type: nonNull(new GraphQLList(nonNull(Record))), description: 'The records of the page without their cursors.', resolve: (c) => c.page },
      pageInfo: {
        type: nonNull(PageInfo),
        resolve: (c) => {
          const last = c.page[c.page.length - 1]
          return { hasNextPage: c.more, endCursor: last === undefined ? null : encodeCursor(c.sort, positionOf(last, c.sort)) }
        }
      },
      totalCount: {
        type: nonNull(GraphQLInt),
        description: 'How many records match the filter, all pages together: counted only when asked for (REST\'s count=true).',
        resolve: async (c, _args, context) => {
          try { return await store.count(c.filter) } catch (err) { throw codedError(err, context.request) }
        }
      }
    }
  })

  parts.query[names.list] = {
    type: nonNull(Connection),
    extensions: { reads: readsOf(name, relations) },
    description: `Records of ${name}, a page at a time (\`first\`: default 50, at most ${model.maxLimit}; \`after\`: a cursor), as REST's GET /${name} lists them.`,
    args: {
      filter: { type: Filter },
      sort: { type: new GraphQLList(nonNull(Sort)) },
      first: { type: GraphQLInt },
      after: { type: GraphQLString }
    },
    resolve: coded(async (args: ListArgs, context) => {
      const list = readListArgs(model, args, through)
      // The list rule joins the filter in the store: pages, cursors and totalCount hold only what the caller may list.
      const filter = listedFilter(access, callerIn(context), list.filter, { sort: list.sort, accessOf })
      const items = await store.query({ ...filter, sort: list.sort, after: list.after, limit: list.first + 1 })
      const more = items.length > list.first
      return { page: more ? items.slice(0, list.first) : items, more, sort: list.sort, filter } satisfies Connection
    })
  } satisfies GraphQLFieldConfig<unknown, GraphQLContext, ListArgs>

  parts.query[names.aggregate] = {
    ...aggregateField(model, store, names, Filter, (SCALARS.get('JSON') as { scalar: GraphQLScalarType }).scalar, coded, (query, context) => listedAggregate(access, callerIn(context), query)),
    extensions: { reads: [store] }
  }

  parts.query[names.byId] = {
    type: Record,
    args: { id: { type: nonNull(GraphQLID) } },
    extensions: { reads: [store] },
    description: `The record of ${name} with this id, or null (also when the caller may not view it; field names: the list field + \`ById\`).`,
    resolve: coded(async (args: { id: string }, context) => viewable(access, callerIn(context), await store.get(writes.idOf(args.id))))
  }

  const Written = new GraphQLObjectType<unknown, GraphQLContext>({
    name: `${names.type}Written`,
    fields: { record: { type: nonNull(Record) }, outcome: { type: nonNull(WriteOutcome) } }
  })
  // Every mutation's payload is nullable: a failed one answers null and its error (with its path), the others their data.
  const writeNote = 'Needs the write scope. Honours the request\'s Idempotency-Key as REST does. Null (with an error naming this field) when it fails; the document\'s other mutations still answer.'
  parts.mutation[names.create] = {
    type: Written,
    description: `Creates a record of ${name}, as REST's POST /${name} does (the same id rule). ${writeNote}`,
    args: { input: { type: nonNull(Input) } },
    resolve: coded(async (args: { input: Record<string, unknown> }, context) => await writes.create(context, names.create, args.input))
  }
  parts.mutation[names.replace] = {
    type: Written,
    description: `Replaces the record of ${name} with this id, as REST's PUT /${name}/{id} does; \`ifMatch\` is its If-Match (an ETag, or *), PRECONDITION_FAILED when stale. ${writeNote}`,
    args: { id: { type: nonNull(GraphQLID) }, input: { type: nonNull(Input) }, ifMatch: { type: GraphQLString } },
    resolve: coded(async (args: { id: string, input: Record<string, unknown>, ifMatch?: string | null }, context) => await writes.replace(context, names.replace, args))
  }
  parts.mutation[names.update] = {
    type: Written,
    description: `Changes some fields of the record of ${name} with this id, as REST's PATCH /${name}/{id} does (a merge patch: a field left out is kept, null removes an optional one); \`ifMatch\` is its If-Match. Never creates. ${writeNote}`,
    args: { id: { type: nonNull(GraphQLID) }, patch: { type: nonNull(Patch) }, ifMatch: { type: GraphQLString } },
    resolve: coded(async (args: { id: string, patch: Record<string, unknown>, ifMatch?: string | null }, context) => await writes.update(context, names.update, args))
  }
  parts.mutation[names.delete] = {
    type: GraphQLID,
    description: `Deletes the record of ${name} with this id and answers its id, as REST's DELETE /${name}/{id} does; \`ifMatch\` is its If-Match. ${writeNote}`,
    args: { id: { type: nonNull(GraphQLID) }, ifMatch: { type: GraphQLString } },
    resolve: coded(async (args: { id: string, ifMatch?: string | null }, context) => await writes.delete(context, names.delete, args))
  }

  const ChangeType = new GraphQLObjectType<Change, GraphQLContext>({
    name: `${names.type}Change`,
    description: `A create, replace or delete of a record of ${name}, by any instance sharing the store.`,
    fields: {
      seq: { type: nonNull(SafeInt), description: 'The change\'s position in the change log: pass it as `after` to resume after it.' },
      kind: { type: nonNull(ChangeKind) },
      id: { type: nonNull(GraphQLID), resolve: (c) => String(c.id) },
      record: { type: Record, description: 'The record as the write left it; null after a delete.' },
      at: { type: nonNull(GraphQLString), description: 'When the store recorded it (ISO 8601).', resolve: (c) => c.at.toISOString() }
    }
  })
  parts.subscription[names.changed] = {
    type: nonNull(ChangeType),
    description: `Every change of ${name} from now on; with \`after\` (a change's seq) first those after it the log still holds; with \`filter\` only the changes of records that match it after the change, or matched it before as far as this subscription saw (the change feed's \`filter=\`). Over SSE (graphql-sse) at {base}/graphql/stream.`,
    args: { after: { type: SafeInt }, filter: { type: Filter } },
    subscribe: (_source, args: { after?: number | null, filter?: FilterArg | null }, context) => {
      try {
        const expression = filterExpression(model, args.filter)
        // Only changes of records the caller may view, as it may see them (the change feed's rule).
        const seen = access === undefined ? undefined : new ChangeAccess(access, callerIn(context))
        return streams.follow(name, args.after ?? undefined, expression === undefined ? undefined : new ChangeFilter(name, expression), seen)
      } catch (err) {
        throw codedError(err, context.request)
      }
    },
    resolve: (change) => change
  }
}

