import { Type, type TSchema } from '@sinclair/typebox'
import { Ajv, type ValidateFunction } from 'ajv'
import { LRUCache } from 'lru-cache'
import type { CollectionAccess, RecordFilter, RecordStores, ReferenceFilter, StoreRevision } from '../../domain/index.js'
import { TEXT_VALIDATION } from '../../http/rest/index.js'
import { BACK_RELATION_CAP, CAPPED_MEMBER, CONTROL_PARAMS, EXPRESSION_PARAM, expandRecords, MAX_EXPAND_DEPTH, MAX_EXPAND_LENGTH, parseExpand, parseListQuery, QueryRefused, querystringSchema, type ExpandNode, type Relations } from '../../records/index.js'
import type { CollectionSchema } from './declare.js'
import { pageSchema, queryModel, recordSchema } from './schema.js'
import { filterThrough } from './filter-through.js'
import type { AskedExpansion, Expansion } from '../records/policy.js'
import { collectionStore } from '../records/routes.js'
import { narrowedThrough, readableStore } from '../records/access.js'
import { onFirstUse } from '../../lib/first-use.js'

/**
 * `?expand=` on a declared collection's routes (src/records/expand.ts): the
 * expansion its policy carries when it has relations, and the schemas that
 * let the `expand` member and parameter through.
 */

export function expansionOf (relations: Relations, name: string, stores: RecordStores, declared: readonly CollectionSchema[]): Expansion | undefined {
  const own = relations.get(name)
  if (own === undefined || own.size === 0) return undefined
  const storeOf = (collection: string): ReturnType<typeof collectionStore> => collectionStore(stores, collection)
  const accessOf = (collection: string): CollectionAccess | undefined => storeOf(collection).declaration.access
  const through = throughFilters(relations, declared)
  const expressions = filterThrough(relations, declared)
  const shapes = expandedShapes(declared)
  // An `expand` text is parsed and its answer's schemas built once: the schema objects stay the same, so each route compiles their serializer once.
  const asked = new LRUCache<string, AskedExpansion>({ max: ASKED_KEPT })
  const combined = new CombinedRevisions()
  return {
    relations: [...own.keys()],
    refers: [...own.values()].some((r) => r.kind !== 'many'),
    referred: [...own.values()].some((r) => r.kind === 'many'),
    parse: (text) => {
      const hit = asked.get(text)
      if (hit !== undefined) return hit
      const nodes = parseExpand(relations, name, text)
      const fresh = { nodes, targets: targetsOf(nodes), ...shapes(name, nodes) }
      asked.set(text, fresh)
      return fresh
    },
    keptRevision: (expansion, own) => {
      const revisions: StoreRevision[] = []
      for (const target of expansion.targets) {
        const store = storeOf(target)
        if (store.revision === undefined || store.declaration.access !== undefined) return undefined
        revisions.push(store.revision)
      }
      return combined.of(expansion, own, revisions)
    },
    apply: async (nodes, records, caller) => await expandRecords(nodes, records, caller === undefined ? storeOf : (collection) => readableStore(storeOf(collection), caller)),
    through: (query, caller) => {
      const found = withExpression(through(name, query), query)
      return found === undefined || caller === undefined ? found : { ...found, filters: found.filters.map((f) => narrowedThrough(f, caller, accessOf)) }
    }
  }

  /** The bracket filters with those of a `filter=` expression that goes through references. */
  function withExpression (brackets: ReturnType<ThroughFilters>, query: Readonly<Record<string, unknown>>): { rest: Record<string, unknown>, filters: ReferenceFilter[], carried: Array<[string, string]>, own?: RecordFilter } | undefined {
    const text = query[EXPRESSION_PARAM]
    if (typeof text !== 'string') return brackets
    const expression = expressions(name, text)
    if (expression === undefined) return brackets
    // The expression is read here whole: its own part joins the list's filter (routes.ts), and a next link carries it on as sent.
    const rest = { ...(brackets?.rest ?? query) }
    delete rest[EXPRESSION_PARAM]
    return { rest, filters: [...brackets?.filters ?? [], ...expression.filters], carried: [...brackets?.carried ?? [], [EXPRESSION_PARAM, text]], ...(expression.own === undefined ? {} : { own: expression.own }) }
  }
}

/** The collections an expansion reads, each once. */
function targetsOf (nodes: readonly ExpandNode[]): string[] {
  const found = new Set<string>()
  const visit = (level: readonly ExpandNode[]): void => {
    for (const { relation, children } of level) {
      found.add(relation.target)
      visit(children)
    }
  }
  visit(nodes)
  return [...found]
}

/**
 * A revision over several stores' revisions: `current` is their sum, which
 * grows with every write to any of them (each only grows). One object per
 * expansion, own revision and target revisions, so pages kept by it are
 * dropped with it when a target store is replaced.
 */
class CombinedRevisions {
  readonly #kept = new WeakMap<AskedExpansion, WeakMap<StoreRevision, { targets: readonly StoreRevision[], revision: StoreRevision }>>()

  of (expansion: AskedExpansion, own: StoreRevision, targets: readonly StoreRevision[]): StoreRevision {
    let byOwn = this.#kept.get(expansion)
    if (byOwn === undefined) this.#kept.set(expansion, byOwn = new WeakMap())
    const hit = byOwn.get(own)
    if (hit !== undefined && hit.targets.length === targets.length && hit.targets.every((t, i) => t === targets[i])) return hit.revision
    const all = [own, ...targets]
    const revision: StoreRevision = { get current () { let sum = 0; for (const r of all) sum += r.current; return sum } }
    byOwn.set(own, { targets, revision })
    return revision
  }
}

/** Distinct `expand` texts whose parse and schemas one collection keeps (the least recently used go first). */
const ASKED_KEPT = 64

/**
 * The schemas of a record and of a page expanded by one `expand` tree: each
 * relation typed as its target's records (one record, or a list of them for
 * a list of references and a back-relation), nested expansions inside, so
 * the answer is written by a compiled serializer that writes only the
 * declared fields (never JSON.stringify of whatever the object holds). A
 * target that is no declared collection (a built-in) stays an open object.
 */
function expandedShapes (declared: readonly CollectionSchema[]): (collection: string, nodes: readonly ExpandNode[]) => { record: TSchema, page: TSchema } {
  const byName = new Map(declared.map((c) => [c.declaration.name, c]))
  const recordOf = (collection: string, nodes: readonly ExpandNode[]): TSchema => {
    const target = byName.get(collection)
    if (target === undefined) return { type: 'object', additionalProperties: true } as unknown as TSchema
    const record = withoutExamples(recordSchema(target))
    return nodes.length === 0 ? record : { ...record, properties: { ...record.properties, expand: expandOf(nodes) } }
  }
  const expandOf = (nodes: readonly ExpandNode[]): TSchema => {
    const properties: Record<string, unknown> = {}
    for (const { relation, children } of nodes) {
      const target = recordOf(relation.target, children)
      properties[relation.name] = relation.kind === 'one' ? target : { type: 'array', items: target }
    }
    if (nodes.some((n) => n.relation.kind === 'many')) properties[CAPPED_MEMBER] = { type: 'array', items: { type: 'string' } }
    return { type: 'object', properties, additionalProperties: false } as unknown as TSchema
  }
  return (collection, nodes) => {
    const record = recordOf(collection, nodes)
    const target = byName.get(collection)
    const page: TSchema = target === undefined ? { type: 'object', properties: { next: { type: 'string' } }, additionalProperties: false } as unknown as TSchema : withoutExamples(pageSchema(target))
    return { record, page: { ...page, properties: { ...page.properties, items: { type: 'array', items: record } } } as unknown as TSchema }
  }
}

/** A schema only the serializer reads: its examples are the API description's. */
function withoutExamples (schema: TSchema): TSchema {
  const { examples: _examples, ...rest } = schema
  return rest as TSchema
}

/** The filters of a list through references (`author.name[contains]=…`, `author.publisher.name=…`) and the rest of its query. */
export type ThroughFilters = (collection: string, query: Readonly<Record<string, unknown>>) => { rest: Record<string, unknown>, filters: ReferenceFilter[], carried: Array<[string, string]> } | undefined

function throughFilters (relations: Relations, declared: readonly CollectionSchema[]): ThroughFilters {
  const byName = new Map(declared.map((c) => [c.declaration.name, c]))
  const checkers = new Map<string, ValidateFunction>()
  // Made with the first filter through a reference, not at start.
  const ajv = onFirstUse(() => new Ajv(TEXT_VALIDATION))
  const refuse: (param: string, detail: string) => never = (param, detail) => { throw new QueryRefused('INVALID_QUERY', detail, { errors: [{ code: 'INVALID_QUERY', detail, field: param }] }) }
  const through: ThroughFilters = (collection, query) => {
    const rest: Record<string, unknown> = {}
    const groups = new Map<string, Record<string, unknown>>()
    const carried: Array<[string, string]> = []
    for (const [param, value] of Object.entries(query)) {
      const dot = param.indexOf('.')
      const bracket = param.indexOf('[')
      if (dot < 0 || (bracket >= 0 && bracket < dot)) { rest[param] = value; continue }
      carried.push([param, String(value)])
      const relation = param.slice(0, dot)
      const group = groups.get(relation) ?? {}
      group[param.slice(dot + 1)] = value
      groups.set(relation, group)
    }
    if (groups.size === 0) return undefined
    const filters: ReferenceFilter[] = []
    for (const [name, group] of groups) {
      const relation = relations.get(collection)?.get(name)
      const target = relation === undefined ? undefined : byName.get(relation.target)
      if (relation?.kind === 'list') {
        refuse(`${name}.`, `"${name}." does not filter through a list of references; filter by the ids it holds: ${name}[has]=<id> or ${name}[hasAny]=<id>,<id>`)
      }
      if (relation?.kind !== 'one' || target === undefined) {
        refuse(`${name}.`, `"${name}." filters through a reference field of ${collection} to a declared collection, and ${collection} has no such field "${name}"`)
      }
      const nested = through(target.declaration.name, group)
      const inner = { ...(nested?.rest ?? group) }
      for (const param of Object.keys(inner)) if ((CONTROL_PARAMS as readonly string[]).includes(param)) refuse(`${name}.${param}`, `${name}.${param}: only filters apply through a reference`)
      const model = queryModel(target)
      let check = checkers.get(target.declaration.name)
      if (check === undefined) checkers.set(target.declaration.name, check = ajv().compile(querystringSchema(model)))
      if (!check(inner)) refuse(`${name}.`, `${name}.: ${ajv().errorsText(check.errors, { dataVar: name })}`)
      const list = parseListQuery(model, inner, 'page')
      filters.push({ field: relation.field, target: target.declaration.name, filter: nested === undefined ? list.filter : { ...list.filter, through: nested.filters } })
    }
    return { rest, filters, carried }
  }
  return through
}

const EXPAND_MEMBER = {
  type: 'object',
  additionalProperties: true,
  description: `With \`?expand=\`: the records the named relations lead to, by relation name (a reference field: the record, left out when it no longer exists; a list of references: the records in its order; a back-relation \`<collection>_via_<field>\`: the records naming this one, in id order, at most ${BACK_RELATION_CAP}; \`${CAPPED_MEMBER}\` lists those cut there). A nested expansion sits in the expanded record's own \`expand\`.`
}

/** The record's schema with its `expand` member. */
export function withExpandMember (record: TSchema): TSchema {
  return { ...record, properties: { ...record.properties, expand: EXPAND_MEMBER } }
}

/** A page's schema whose items have the `expand` member. */
export function pageWithExpandMember (page: TSchema): TSchema {
  const items = page.properties.items
  return { ...page, properties: { ...page.properties, items: { ...items, items: withExpandMember(items.items) } } }
}

/** The list's query parameters with `expand` (without `querystring`: `expand` alone, a read by id's). */
export function querystringWithExpand (querystring: TSchema | undefined, relations: readonly string[]): TSchema {
  const expand = Type.String({
    maxLength: MAX_EXPAND_LENGTH,
    description: `Relations to answer with each record, comma-separated (${relations.join(', ')}); \`a.b\` expands inside an expanded record, at most ${MAX_EXPAND_DEPTH} levels. One store query per relation per page.`
  })
  if (querystring === undefined) return Type.Object({ expand: Type.Optional(expand) })
  return { ...querystring, properties: { ...querystring.properties, expand } }
}
