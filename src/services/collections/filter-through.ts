import { LRUCache } from 'lru-cache'
import { checkFilter, FilterError, liftConditions, parseFilter, type FilterFields, type RecordFilter, type ReferenceFilter, type SyntaxNode } from '../../domain/index.js'
import { EXPRESSION_PARAM, QueryRefused, type Relations } from '../../records/index.js'
import type { CollectionSchema } from './declare.js'
import { queryModel } from './schema.js'

/**
 * `filter=` expressions through references (`author.name = 'Herbert' &&
 * year > 1960`, nested `author.publisher.name = 'Ace'`): each condition the
 * expression ANDs at its top that names only one reference's fields becomes
 * that reference's semi-join, as the bracket form's `author.name=…` does, so
 * every store answers it alike; the rest stays the collection's own
 * expression. A reference's conditions may be combined with each other in
 * any way (`author.name = 'a' || author.name = 'b'`), but not with the
 * collection's own fields inside `||` or `!`: that is refused, naming where.
 */
export interface ExpressionThrough {
  /** The collection's own part of the expression, checked (undefined: none). */
  own?: RecordFilter
  filters: ReferenceFilter[]
}

/** The expression split by reference, or undefined when it names no reference (it is then read as before). */
export type FilterThrough = (collection: string, text: string) => ExpressionThrough | undefined

export function filterThrough (relations: Relations, declared: readonly CollectionSchema[]): FilterThrough {
  const byName = new Map(declared.map((c) => [c.declaration.name, c]))
  const fieldsOf = (collection: string): FilterFields | undefined => {
    const schema = byName.get(collection)
    return schema === undefined ? undefined : queryModel(schema).fields as FilterFields
  }

  /** The reference a path goes through (its first segment), when it names no field of the collection itself. */
  const referenceOf = (collection: string, { path, at }: Comparison): string | undefined => {
    if (path.length < 2 || Object.hasOwn(fieldsOf(collection) ?? {}, path.join('.'))) return undefined
    const relation = relations.get(collection)?.get(path[0] as string)
    if (relation === undefined || relation.kind === 'many') return undefined
    if (relation.kind === 'list') throw new FilterError(`"${path.join('.')}" goes through a list of references, which a filter does not follow: test the ids it holds with ${path[0] as string} ?= <id>`, at)
    return relation.field
  }

  /** Splits the top-level conjuncts of `node` by the reference they go through ('' for the collection's own). */
  const split = (collection: string, node: SyntaxNode): Map<string, SyntaxNode[]> => {
    const groups = new Map<string, SyntaxNode[]>()
    for (const conjunct of conjuncts(node)) {
      const leaves = comparisons(conjunct)
      const through = new Set(leaves.map((leaf) => referenceOf(collection, leaf) ?? ''))
      if (through.size > 1) {
        const first = leaves.find((leaf) => referenceOf(collection, leaf) !== undefined) as Comparison
        throw new FilterError(`a condition through a reference (${first.path.join('.')}) joins the rest of the filter with && only, not inside || or ! with fields of ${collection} or of another reference`, first.at)
      }
      const key = [...through][0] as string
      groups.set(key, [...groups.get(key) ?? [], key === '' ? conjunct : strip(conjunct)])
    }
    return groups
  }

  /** The records of `collection` that the conjuncts accept, as a filter: own conditions, and a semi-join per reference. */
  const filterOf = (collection: string, nodes: SyntaxNode[]): RecordFilter => {
    const groups = split(collection, and(nodes))
    const own = groups.get('')
    const lifted = own === undefined ? undefined : liftConditions(checkFilter(and(own), fieldsOf(collection) ?? {}))
    return {
      where: lifted?.conditions ?? [],
      ...(lifted?.rest === undefined ? {} : { expression: lifted.rest }),
      ...(groups.size > (own === undefined ? 0 : 1) ? { through: throughOf(collection, groups) } : {})
    }
  }

  const throughOf = (collection: string, groups: Map<string, SyntaxNode[]>): ReferenceFilter[] => [...groups].flatMap(([field, nodes]) => {
    if (field === '') return []
    const target = relations.get(collection)?.get(field)?.target as string
    return [{ field, target, filter: filterOf(target, nodes) }]
  })

  /**
   * Each text's outcome, kept: a list with `filter=` asks this on every
   * request, and a repeated text (the common case, one that names no
   * reference included) is then not parsed again. What is kept depends only
   * on the text and the declarations; no caller changes it (they copy).
   * Refusals are not kept: they are answered from a fresh reading.
   */
  const read = new LRUCache<string, { through: ExpressionThrough | undefined }>({ max: THROUGH_KEPT })
  return (collection, text) => {
    const key = `${collection}\u0000${text}`
    const kept = read.get(key)
    if (kept !== undefined) return kept.through
    const through = readThrough(collection, text)
    read.set(key, { through })
    return through
  }

  function readThrough (collection: string, text: string): ExpressionThrough | undefined {
    try {
      // A text that does not parse is left to the list's own reading, which words the mistake.
      let node: SyntaxNode
      try { node = parseFilter(text) } catch { return undefined }
      const groups = split(collection, node)
      if (groups.size === (groups.has('') ? 1 : 0)) return undefined
      const own = groups.get('')
      return { ...(own === undefined ? {} : { own: filterOf(collection, own) }), filters: throughOf(collection, groups) }
    } catch (err) {
      if (!(err instanceof FilterError)) throw err
      const detail = `${EXPRESSION_PARAM}: ${err.message}`
      throw new QueryRefused('INVALID_QUERY', detail, { errors: [{ code: 'INVALID_QUERY', detail, field: EXPRESSION_PARAM }] })
    }
  }
}

/** How many filter texts (with their collection) the split is kept for: as the lists' own cache of filter texts, bounded against many distinct ones. */
const THROUGH_KEPT = 1024

type Comparison = Extract<SyntaxNode, { type: 'compare' }>

function conjuncts (node: SyntaxNode): SyntaxNode[] {
  return node.type === 'and' ? node.items.flatMap(conjuncts) : [node]
}

function and (nodes: SyntaxNode[]): SyntaxNode {
  return nodes.length === 1 ? nodes[0] as SyntaxNode : { type: 'and', items: nodes }
}

function comparisons (node: SyntaxNode): Comparison[] {
  switch (node.type) {
    case 'and':
    case 'or': return node.items.flatMap(comparisons)
    case 'not': return comparisons(node.item)
    case 'compare': return [node]
  }
}

/** The node with every path's first segment (the reference) taken off: the same conditions, on the referenced record. */
function strip (node: SyntaxNode): SyntaxNode {
  switch (node.type) {
    case 'and':
    case 'or': return { type: node.type, items: node.items.map(strip) }
    case 'not': return { type: 'not', item: strip(node.item) }
    case 'compare': return { ...node, path: node.path.slice(1) }
  }
}
