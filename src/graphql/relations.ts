import DataLoader from 'dataloader'
import { GraphQLInt, GraphQLList, GraphQLNonNull, type GraphQLEnumType, type GraphQLFieldConfigMap, type GraphQLInputObjectType, type GraphQLObjectType } from 'graphql'
import { referenceIdOf, type FieldData, type RecordId, type RecordStore, type SortKey, type StoredRecord } from '../domain/index.js'
import { BACK_RELATION_CAP, type CollectionModel, type Relations } from '../records/index.js'
import { readListArgs, type ThroughPaths } from './lists.js'
import { codedError } from './errors.js'
import type { WriteContext } from './writes.js'
import { accessOfStores, callerIn, listedFilter, viewable } from './access.js'

/**
 * References between collections in GraphQL (issue 30): a reference field
 * is typed as the record it names (`author: Author`), a back-relation is a
 * list field (`books_via_author(first:, filter:, sort:)`). Each is read through a DataLoader
 * of the request, so a level of a query costs one store query per relation
 * (getMany, withValues), never one per record. A target the caller may
 * not view (its collection's view rule, docs/rules.md) is left out: a
 * reference to it reads null, a list or back-relation goes without it.
 */

type Loaders = Map<string, DataLoader<FieldData, unknown>>
/** The loaders of each request (its context object), dropped with it. */
const perRequest = new WeakMap<object, Loaders>()

function loader<V> (context: object, key: string, batch: (keys: readonly FieldData[]) => Promise<V[]>): DataLoader<FieldData, V> {
  let loaders = perRequest.get(context)
  if (loaders === undefined) perRequest.set(context, loaders = new Map())
  let found = loaders.get(key) as DataLoader<FieldData, V> | undefined
  if (found === undefined) {
    found = new DataLoader<FieldData, V>(batch, { cache: true })
    loaders.set(key, found as DataLoader<FieldData, unknown>)
  }
  return found
}

/** A record's id as a reference field holds it (64-bit ids as the numbers a field keeps). */
function asValue (id: RecordId): FieldData {
  return typeof id === 'bigint' ? Number(id) : id
}

/** The loader of `target`'s records by the value a reference holds (null: no such record), shared by every relation into it. */
function recordsById (context: object, target: string, store: RecordStore): DataLoader<FieldData, StoredRecord | null> {
  return loader(context, `one:${target}`, async (values) => {
    const found = await store.getMany(values.map((v) => referenceIdOf(store.declaration, v)))
    const byValue = new Map(found.map((r) => [asValue(r.id), r]))
    return values.map((v) => byValue.get(v) ?? null)
  })
}

/** A back-relation's arguments: the list field's filter and sort, and how many of each record's. */
interface BackRelationArgs {
  first?: number | null
  filter?: Readonly<Record<string, unknown>> | null
  sort?: readonly SortKey[] | null
}

export interface RelationTypes {
  /** The record type of each collection, by name, once built (the fields are read lazily, after every type exists). */
  types: Map<string, GraphQLObjectType<StoredRecord, WriteContext>>
  /** The filter input and query model of each collection (a back-relation's `filter`). */
  filters: Map<string, { type: GraphQLInputObjectType, sort: GraphQLEnumType, model: CollectionModel, through: ThroughPaths }>
  stores: ReadonlyMap<string, RecordStore>
  relations: Relations
}

/**
 * The stores a field listing `collection` may read: its own, and those its
 * reference fields lead to (a filter through a reference reads them). Named
 * in the field's `extensions.reads`, so the answers kept per document know
 * which collections' writes make them stale (src/services/albums/kept-reads.ts).
 */
export function readsOf (collection: string, { stores, relations }: Pick<RelationTypes, 'stores' | 'relations'>): RecordStore[] {
  const names = [collection, ...[...relations.get(collection)?.values() ?? []].filter((r) => r.kind === 'one').map((r) => r.target)]
  return [...new Set(names)].flatMap((name) => { const store = stores.get(name); return store === undefined ? [] : [store] })
}

/** The fields of `collection`'s record type that follow its relations; those whose target has no type are left out. */
export function relationFields (collection: string, { types, filters, stores, relations }: RelationTypes): GraphQLFieldConfigMap<StoredRecord, WriteContext> {
  const fields: GraphQLFieldConfigMap<StoredRecord, WriteContext> = {}
  const accessOf = accessOfStores(stores)
  for (const relation of relations.get(collection)?.values() ?? []) {
    const type = types.get(relation.target)
    const store = stores.get(relation.target)
    if (type === undefined || store === undefined) continue
    if (relation.kind === 'list') {
      fields[relation.name] = {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))),
        description: `The records of ${relation.target} this list names, in its order (those that no longer exist left out). Loaded in one store query for every record of a level.`,
        // The cost of a document weighs the list as its most items (src/services/albums/cost.ts).
        extensions: { mostItems: filters.get(collection)?.model.fields[relation.field]?.mostItems, reads: [store] },
        resolve: async (record, _args, context) => {
          const value = record[relation.field]
          if (!Array.isArray(value) || value.length === 0) return []
          try {
            // The loader of single references to the same collection: every id of a level in one getMany.
            const found = await recordsById(context, relation.target, store).loadMany(value as FieldData[])
            const caller = callerIn(context)
            return found.filter((r): r is StoredRecord => r !== null && !(r instanceof Error) && viewable(store.declaration.access, caller, r) !== null)
          } catch (err) { throw codedError(err, context.request) }
        }
      }
      continue
    }
    if (relation.kind === 'one') {
      fields[relation.name] = {
        type,
        description: `The record of ${relation.target} this field names (null when unset). Loaded in one store query for every record of a level.`,
        extensions: { reads: [store] },
        resolve: async (record, _args, context) => {
          const value = record[relation.field]
          if (value === undefined || value === null) return null
          try {
            return viewable(store.declaration.access, callerIn(context), await recordsById(context, relation.target, store).load(value))
          } catch (err) { throw codedError(err, context.request) }
        }
      }
      continue
    }
    const filter = filters.get(relation.target)
    fields[relation.name] = {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))),
      description: `The records of ${relation.target} whose ${relation.field} ${relation.list === true ? 'list holds' : 'names'} this one, in id order or \`sort\`'s (\`first\`: at most ${BACK_RELATION_CAP}, the default; \`filter\` and \`sort\`: as the list field's). Loaded in one store query for every record of a level.`,
      extensions: { reads: readsOf(relation.target, { stores, relations }) },
      args: {
        first: { type: GraphQLInt },
        ...(filter === undefined ? {} : { filter: { type: filter.type }, sort: { type: new GraphQLList(new GraphQLNonNull(filter.sort)) } })
      },
      resolve: async (record, args: BackRelationArgs, context) => {
        const first = Math.min(Math.max(args.first ?? BACK_RELATION_CAP, 0), BACK_RELATION_CAP)
        try {
          // Read as the list field reads them: the same operators, limits and refusals (a key named twice, a bad value).
          const asked = filter === undefined || (args.filter == null && args.sort == null) ? undefined : readListArgs(filter.model, { filter: args.filter ?? null, sort: args.sort ?? null }, filter.through)
          const sort = asked?.sort ?? []
          // The view rule joins the filter in the store, so each record's cap counts only records the caller may view;
          // a guarded field the filter or sort names, and a filter through a reference, see only what the caller may read.
          const access = store.declaration.access
          const where = access === undefined && asked?.filter.through === undefined
            ? asked?.filter
            : listedFilter(access, callerIn(context), asked?.filter ?? { where: [] }, { operation: 'view', sort, accessOf })
          const through = relation.list === true
          // The same filter and sort is one loader: every record of a level that asks with them shares one store query.
          const lists = loader(context, `many:${relation.name}:${JSON.stringify(where ?? null)}:${JSON.stringify(sort)}`, async (values) => {
            // The keys are record ids: numbers or strings.
            const ids = values.filter((v): v is number | string => typeof v === 'number' || typeof v === 'string')
            const found = through
              ? await store.query({ ...where ?? { where: [] }, lists: [...where?.lists ?? [], { field: relation.field, op: 'hasAny', values: ids }], sort, limit: BACK_RELATION_CAP * values.length })
              : await store.withValues(relation.field, values, BACK_RELATION_CAP, where, sort)
            const byValue = new Map<FieldData, StoredRecord[]>()
            for (const r of found) {
              // Through a list of references (`books_via_tags`): a record belongs to each id its list holds.
              const held = r[relation.field]
              for (const value of through ? (Array.isArray(held) ? held as FieldData[] : []) : [held as FieldData]) byValue.set(value, [...byValue.get(value) ?? [], r])
            }
            return values.map((v) => byValue.get(v) ?? [])
          })
          return (await lists.load(asValue(record.id))).slice(0, first)
        } catch (err) { throw codedError(err, context.request) }
      }
    }
  }
  return fields
}
