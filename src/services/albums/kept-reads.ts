import { getOperationAST, Kind, OperationTypeNode, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql'
import type { StoreRevision } from '../../domain/index.js'

/** What a field that reads records names in its `extensions.reads` (src/graphql/schema.ts, relations.ts): the stores it reads. */
interface ReadStore {
  readonly revision?: StoreRevision
  readonly declaration: { readonly access?: unknown }
}

/**
 * The stores one operation reads, when its answer may be kept: a query
 * whose every root field is a constant (`albums`, introspection) or names
 * the stores it reads, each of which counts its writes (a revision: the
 * memory store; a database, which other processes write, has none).
 * Undefined for any other operation: it runs on every request.
 */
export interface KeptReads {
  readonly revisions: readonly StoreRevision[]
  /** One of the stores has record rules: the answer is the caller's own (kept per caller as the rules see it). */
  readonly perCaller: boolean
}

/** The root fields whose answers depend on the request alone (the albums never change while the server runs). */
const CONSTANT_FIELDS = new Set(['albums', '__typename', '__schema', '__type'])

const NOT_KEPT = null

/** Per prepared document (the engine caches them) and operation name: what its answer reads (null: not kept). */
export class KeptReadsOf {
  readonly #known = new WeakMap<DocumentNode, Map<string, KeptReads | null>>()

  of (schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): KeptReads | undefined {
    let known = this.#known.get(document)
    if (known === undefined) this.#known.set(document, known = new Map())
    const key = operationName ?? ''
    let reads = known.get(key)
    if (reads === undefined) known.set(key, reads = walk(schema, document, operationName))
    return reads ?? undefined
  }
}

/**
 * Every field of the document (each of its operations and fragments: more
 * than the operation may read, never less) with the schema's types, and
 * the stores those fields name.
 */
function walk (schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): KeptReads | null {
  const operation = getOperationAST(document, operationName)
  if (operation == null || operation.operation !== OperationTypeNode.QUERY) return NOT_KEPT
  const queryType = schema.getQueryType()
  const stores = new Set<ReadStore>()
  let keepable = true
  const typeInfo = new TypeInfo(schema)
  visit(document, visitWithTypeInfo(typeInfo, {
    [Kind.FIELD]: {
      enter (node) {
        const reads = typeInfo.getFieldDef()?.extensions.reads as readonly ReadStore[] | undefined
        if (reads !== undefined) for (const store of reads) stores.add(store)
        // A root field of the query that names no stores and is no constant: what it reads is unknown.
        else if (typeInfo.getParentType() === queryType && !CONSTANT_FIELDS.has(node.name.value)) keepable = false
      }
    }
  }))
  if (!keepable) return NOT_KEPT
  const revisions: StoreRevision[] = []
  let perCaller = false
  for (const store of stores) {
    if (store.revision === undefined) return NOT_KEPT
    if (store.declaration.access !== undefined) perCaller = true
    revisions.push(store.revision)
  }
  return { revisions, perCaller }
}

/** The sum of revisions that only ever grow: it stands still exactly while none of them moves. */
export function revisionSum (revisions: readonly StoreRevision[]): number {
  let sum = 0
  for (const r of revisions) sum += r.current
  return sum
}
