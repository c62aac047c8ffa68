import { referenceIdOf, type CollectionDeclaration, type FieldData, type RecordId, type RecordStore, type StoredRecord } from '../domain/index.js'
import { QueryRefused } from './errors.js'

/**
 * `?expand=author,books_via_author.tags`: the records a page's references
 * name (and the records that name them), added under each record's
 * `expand` member, PocketBase's shape. One store query per relation per
 * page, never one per record: the ids of every record of the page are
 * asked for at once (getMany, withValues), and a nested relation is read
 * once for all the records of the level above. A referenced record that no
 * longer exists is left out.
 */

/** Most levels of `a.b.c`. */
export const MAX_EXPAND_DEPTH = 3
/** Most relations one `expand` names (counting each level). */
export const MAX_EXPANSIONS = 10
/** Most records a back-relation (`books_via_author`) holds per record; `expand._capped` names one that held more. */
export const BACK_RELATION_CAP = 100
export const MAX_EXPAND_LENGTH = 500
/** The member of `expand` that lists the back-relations cut at BACK_RELATION_CAP (no field name starts with `_`). */
export const CAPPED_MEMBER = '_capped'

/** A relation of a collection: a reference field (one record) or a back-relation `<collection>_via_<field>` (a list). */
export type Relation =
  | { kind: 'one', name: string, field: string, target: string }
  /** A list of references (many-to-many): the records it names, in its order. */
  | { kind: 'list', name: string, field: string, target: string }
  /** A back-relation; `list`: through a list of references (the records whose list holds this id). */
  | { kind: 'many', name: string, field: string, target: string, list?: true }

/** The relations of every collection, by collection name. */
export type Relations = ReadonlyMap<string, ReadonlyMap<string, Relation>>

export function relationsOf (declarations: readonly CollectionDeclaration[]): Relations {
  const relations = new Map<string, Map<string, Relation>>()
  const of = (name: string): Map<string, Relation> => {
    let found = relations.get(name)
    if (found === undefined) relations.set(name, found = new Map())
    return found
  }
  for (const declaration of declarations) {
    for (const [field, reference] of Object.entries(declaration.references ?? {})) {
      const many = reference.many === true
      of(declaration.name).set(field, { kind: many ? 'list' : 'one', name: field, field, target: reference.collection })
      const back = `${declaration.name.replace(/-/g, '_')}_via_${field}`
      of(reference.collection).set(back, { kind: 'many', name: back, field, target: declaration.name, ...(many ? { list: true as const } : {}) })
    }
  }
  return relations
}

/** What to expand, one node per relation, with what to expand inside it. */
export interface ExpandNode {
  relation: Relation
  children: ExpandNode[]
}

/** The tree of an `expand` parameter on `collection`, or QueryRefused (400 INVALID_QUERY) naming what is wrong. */
export function parseExpand (relations: Relations, collection: string, text: string): ExpandNode[] {
  const refuse: (detail: string) => never = (detail) => { throw new QueryRefused('INVALID_QUERY', detail, { errors: [{ code: 'INVALID_QUERY', detail, field: 'expand' }] }) }
  if (text.length > MAX_EXPAND_LENGTH) refuse(`expand is at most ${MAX_EXPAND_LENGTH} characters`)
  const roots: ExpandNode[] = []
  let count = 0
  for (const path of text.split(',')) {
    const segments = path.trim().split('.')
    if (segments.length > MAX_EXPAND_DEPTH) refuse(`expand "${path}" goes ${segments.length} levels deep: at most ${MAX_EXPAND_DEPTH}`)
    let level = roots
    let at = collection
    for (const segment of segments) {
      const relation = relations.get(at)?.get(segment)
      if (relation === undefined) {
        const known = [...relations.get(at)?.keys() ?? []]
        refuse(`expand: ${at} has no relation "${segment}"${known.length === 0 ? ' (it has none)' : ` (it has ${known.join(', ')})`}`)
      }
      let node = level.find((n) => n.relation.name === segment)
      if (node === undefined) {
        if (++count > MAX_EXPANSIONS) refuse(`expand names more than ${MAX_EXPANSIONS} relations`)
        level.push(node = { relation, children: [] })
      }
      level = node.children
      at = relation.target
    }
  }
  return roots
}

/** A collection's store, by name. */
export type StoreOf = (collection: string) => RecordStore

/** A record with its `expand` member (the referenced records, themselves expanded where asked). */
export type ExpandedRecord = Readonly<Record<string, unknown>> & { readonly id: RecordId }

/**
 * The records with their `expand` member, as new objects (a store's records
 * are never changed). Each node reads once for all `records`.
 */
export async function expandRecords (nodes: readonly ExpandNode[], records: readonly StoredRecord[], storeOf: StoreOf): Promise<ExpandedRecord[]> {
  if (nodes.length === 0 || records.length === 0) return [...records]
  const expansions = await Promise.all(nodes.map(async (node) => await expandNode(node, records, storeOf)))
  // Plain indexed loops: this runs for every record of every expanded page (no iterator or array made per record).
  const expanded: ExpandedRecord[] = new Array(records.length)
  for (let r = 0; r < records.length; r++) {
    const record = records[r] as StoredRecord
    const expand: Record<string, unknown> = {}
    let capped: string[] | undefined
    for (let i = 0; i < nodes.length; i++) {
      const found = (expansions[i] as Found)(record)
      if (found === undefined) continue
      const name = (nodes[i] as ExpandNode).relation.name
      expand[name] = found.value
      if (found.capped) (capped ??= []).push(name)
    }
    if (capped !== undefined) expand[CAPPED_MEMBER] = capped
    expanded[r] = { ...record, expand }
  }
  return expanded
}

type Found = (record: StoredRecord) => { value: unknown, capped: boolean } | undefined

async function expandNode (node: ExpandNode, records: readonly StoredRecord[], storeOf: StoreOf): Promise<Found> {
  const { relation } = node
  const target = storeOf(relation.target)
  if (relation.kind === 'list') return await expandList(node, records, storeOf)
  if (relation.kind === 'many' && relation.list === true) return await expandBackList(node, records, storeOf)
  if (relation.kind === 'one') {
    const values = new Set<FieldData>()
    for (const record of records) {
      const value = record[relation.field]
      if (value !== undefined && value !== null) values.add(value)
    }
    const ids = [...values].map((v) => referenceIdOf(target.declaration, v))
    const found = await expandRecords(node.children, await target.getMany(ids), storeOf)
    const byId = new Map<RecordId, ExpandedRecord>(found.map((r) => [typeof r.id === 'bigint' ? Number(r.id) : r.id, r]))
    return (record) => {
      const value = record[relation.field]
      const hit = value === undefined || value === null ? undefined : byId.get(value as RecordId)
      return hit === undefined ? undefined : { value: hit, capped: false }
    }
  }
  // A back-relation: the records whose field names one of these, one more than the cap to know it was cut.
  const values = records.map((r) => typeof r.id === 'bigint' ? Number(r.id) : r.id)
  const found = await expandRecords(node.children, await target.withValues(relation.field, values, BACK_RELATION_CAP + 1), storeOf)
  const byValue = new Map<FieldData, ExpandedRecord[]>()
  for (const r of found) {
    const value = r[relation.field] as FieldData
    const list = byValue.get(value)
    if (list === undefined) byValue.set(value, [r])
    else list.push(r)
  }
  return (record) => {
    const list = byValue.get(typeof record.id === 'bigint' ? Number(record.id) : record.id) ?? []
    return { value: list.slice(0, BACK_RELATION_CAP), capped: list.length > BACK_RELATION_CAP }
  }
}

/** The ids a list of references holds (none when unset). */
function itemsOf (record: Readonly<Record<string, unknown>>, field: string): FieldData[] {
  const value = record[field]
  return Array.isArray(value) ? value as FieldData[] : []
}

/** A list of references: every id of the page's lists in one getMany, each list answered in its own order, missing records left out. */
async function expandList (node: ExpandNode, records: readonly StoredRecord[], storeOf: StoreOf): Promise<Found> {
  const { relation } = node
  const target = storeOf(relation.target)
  const values = new Set<FieldData>()
  for (const r of records) for (const v of itemsOf(r, relation.field)) values.add(v)
  const ids = [...values].map((v) => referenceIdOf(target.declaration, v))
  const found = await expandRecords(node.children, await target.getMany(ids), storeOf)
  const byId = new Map<FieldData, ExpandedRecord>(found.map((r) => [typeof r.id === 'bigint' ? Number(r.id) : r.id, r]))
  return (record) => {
    const items = itemsOf(record, relation.field)
    const value: ExpandedRecord[] = []
    for (const v of items) {
      const hit = byId.get(v)
      if (hit !== undefined) value.push(hit)
    }
    return { value, capped: false }
  }
}

/**
 * A back-relation through a list of references (`books_via_tags`): one
 * query for the records whose list holds any id of the page (`hasAny`), in
 * id order. It reads at most BACK_RELATION_CAP per record of the page in
 * all; when that many came, every list is marked capped (it may be cut).
 */
async function expandBackList (node: ExpandNode, records: readonly StoredRecord[], storeOf: StoreOf): Promise<Found> {
  const { relation } = node
  const target = storeOf(relation.target)
  const values = records.map((r) => typeof r.id === 'bigint' ? Number(r.id) : r.id)
  const limit = BACK_RELATION_CAP * records.length
  const read = await target.query({ where: [], lists: [{ field: relation.field, op: 'hasAny', values }], sort: [], limit })
  const found = await expandRecords(node.children, read, storeOf)
  const cut = read.length >= limit
  const byValue = new Map<FieldData, ExpandedRecord[]>()
  for (const r of found) {
    for (const value of itemsOf(r, relation.field)) {
      const list = byValue.get(value)
      if (list === undefined) byValue.set(value, [r])
      else list.push(r)
    }
  }
  return (record) => {
    const list = byValue.get(typeof record.id === 'bigint' ? Number(record.id) : record.id) ?? []
    return { value: list.slice(0, BACK_RELATION_CAP), capped: cut || list.length > BACK_RELATION_CAP }
  }
}
