import {
  getNamedType, getNullableType, getOperationAST, GraphQLError, isListType, isObjectType, Kind,
  type DocumentNode, type FragmentDefinitionNode, type GraphQLNamedType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode, type ValueNode
} from 'graphql'
import { DEFAULT_FIRST } from '../../graphql/lists.js'
import { BACK_RELATION_CAP } from '../../records/index.js'
import { GRAPHQL_CODES } from './limits.js'

/**
 * What one scan of a collection costs: `totalCount` and a text search
 * (`filter: {q}`) read every record, however small the page. A fixed
 * estimate, as the size of a collection is not known before the query runs:
 * as much as reading 10 000 field values, so that a few scans fit a
 * document's budget and dozens do not (issue 36: 30 aliases of a search with
 * its count took 22 s on 200 000 records).
 */
export const SCAN_COST = 10_000

export type Variables = Readonly<Record<string, unknown>> | null | undefined

/**
 * The cost of an operation, from its document and variables, before it runs
 * (issue 36). Each selected field costs 1 and an object's fields are added to
 * it; a list field (a connection: `first`, `nodes`/`edges`) costs its `first`
 * (default 50) times what one record of it selects, plus a scan for
 * `totalCount` and another for a text search; a list of references its
 * declared most items (maxItems) times what one record selects. Fragments count once per use;
 * `@skip`/`@include` are not weighed (the cost is an upper bound).
 *
 * graphql-query-complexity (installed) is not used: its estimators see a
 * field's children as one number, so a connection could not charge `first`
 * for each record's fields and a scan for `totalCount` once.
 */
export function operationCost (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): number {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
  const defaults = new Map<string, ValueNode>()
  for (const v of operation.variableDefinitions ?? []) if (v.defaultValue !== undefined) defaults.set(v.variable.name.value, v.defaultValue)
  /** A literal or a variable's value, as plain JavaScript (what the cost needs: numbers, strings, objects). */
  const valueOf = (node: ValueNode | undefined): unknown => {
    if (node === undefined) return undefined
    switch (node.kind) {
      case Kind.VARIABLE: {
        const name = node.name.value
        return variables != null && Object.hasOwn(variables, name) ? variables[name] : valueOf(defaults.get(name))
      }
      case Kind.INT: return Number(node.value)
      case Kind.STRING: return node.value
      case Kind.NULL: return null
      case Kind.OBJECT: return Object.fromEntries(node.fields.map((f) => [f.name.value, valueOf(f.value)]))
      // A filter's `and`/`or` hold further filters, which may search.
      case Kind.LIST: return node.values.map(valueOf)
      default: return true // a value is given; its content does not weigh
    }
  }
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType()
  const active = new Set<string>()

  const walk = (set: SelectionSetNode, type: GraphQLNamedType | null | undefined): number => {
    let cost = 0
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition === undefined ? type : schema.getType(selection.typeCondition.name.value)
        cost += walk(selection.selectionSet, on)
        continue
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value
        const fragment = fragments.get(name)
        if (fragment === undefined || active.has(name)) continue
        active.add(name)
        cost += walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value))
        active.delete(name)
        continue
      }
      const name = selection.name.value
      if (name === '__typename') continue
      const field = type !== null && type !== undefined && isObjectType(type) ? type.getFields()[name] : undefined
      const fieldType = field === undefined ? undefined : getNamedType(field.type)
      if (selection.selectionSet === undefined) { cost += 1; continue }
      if (fieldType !== undefined && isConnection(fieldType) && field?.args.some((a) => a.name === 'first') === true) {
        const args = new Map(selection.arguments?.map((a) => [a.name.value, valueOf(a.value)]))
        const first = typeof args.get('first') === 'number' ? Math.max(0, args.get('first') as number) : DEFAULT_FIRST
        const filter = args.get('filter')
        const search = searches(filter)
        cost += 1 + (search ? SCAN_COST : 0) + connectionCost(selection.selectionSet, fieldType, first)
        continue
      }
      if (field !== undefined && isListType(getNullableType(field.type)) && field.args.some((a) => a.name === 'first')) {
        // A back-relation (books_via_author): up to `first` records (default and most: the cap), each what it selects.
        const given = selection.arguments?.find((a) => a.name.value === 'first')
        const value = valueOf(given?.value)
        const first = typeof value === 'number' ? Math.min(Math.max(0, value), BACK_RELATION_CAP) : BACK_RELATION_CAP
        cost += 1 + first * walk(selection.selectionSet, fieldType)
        continue
      }
      // A list of references (tags: [Tag!]!): as many records as it may hold, each what it selects.
      const most = field?.extensions.mostItems
      cost += 1 + (typeof most === 'number' ? most : 1) * walk(selection.selectionSet, fieldType)
    }
    return cost
  }

  /** A connection's own selections: `nodes` and `edges` once per record of the page, `totalCount` a scan, the rest once. */
  const connectionCost = (set: SelectionSetNode, type: GraphQLNamedType, first: number): number => {
    let cost = 0
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) { cost += connectionCost(selection.selectionSet, type, first); continue }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value)
        if (fragment === undefined || active.has(fragment.name.value)) continue
        active.add(fragment.name.value)
        cost += connectionCost(fragment.selectionSet, type, first)
        active.delete(fragment.name.value)
        continue
      }
      const name = selection.name.value
      if (name === 'totalCount') cost += SCAN_COST
      else if ((name === 'nodes' || name === 'edges') && selection.selectionSet !== undefined) {
        const field = isObjectType(type) ? type.getFields()[name] : undefined
        cost += 1 + first * walk(selection.selectionSet, field === undefined ? undefined : getNamedType(field.type))
      } else if (name !== '__typename') cost += 1 + (selection.selectionSet === undefined ? 0 : walk(selection.selectionSet, isObjectType(type) ? getNamedType(type.getFields()[name]?.type) : undefined))
    }
    return cost
  }

  return walk(operation.selectionSet, root)
}

/** A page type of a collection's list field (src/graphql/schema.ts): records as `nodes`, a `totalCount`. */
function isConnection (type: GraphQLNamedType): boolean {
  if (!isObjectType(type)) return false
  const fields = type.getFields()
  return fields.nodes !== undefined && fields.totalCount !== undefined
}

/**
 * The budget check: the operation's cost, or the error that refuses it
 * (QUERY_TOO_COSTLY, saying the cost and the budget). Costs of operations
 * without variables are kept per document (the engine caches documents, so
 * a repeated query is weighed once).
 */
export class CostBudget {
  readonly #known = new WeakMap<DocumentNode, Map<string, number>>()

  /** `max`: the budget (`--graphql-max-cost`); 0 weighs nothing. */
  constructor (private readonly schema: GraphQLSchema, readonly max: number) {}

  check (document: DocumentNode, operationName: string | null | undefined, variables: Variables): GraphQLError | undefined {
    if (this.max === 0) return undefined
    const operation = getOperationAST(document, operationName)
    if (operation == null) return undefined // the caller says which operation is missing
    const cost = this.#cost(document, operation, operationName, variables)
    if (cost <= this.max) return undefined
    return new GraphQLError(
      `The query costs ${cost}, more than the budget of ${this.max} a document may cost (--graphql-max-cost). Each list costs its \`first\` (default ${DEFAULT_FIRST}) times the fields of one record, and \`totalCount\` and a text search (\`filter: {q}\`) ${SCAN_COST} each: ask for fewer records, fields, counts or searches, or split the query.`,
      { nodes: operation, extensions: { code: GRAPHQL_CODES.tooCostly, cost, budget: this.max } }
    )
  }

  #cost (document: DocumentNode, operation: OperationDefinitionNode, operationName: string | null | undefined, variables: Variables): number {
    if ((operation.variableDefinitions?.length ?? 0) > 0) return operationCost(this.schema, document, operation, variables)
    let known = this.#known.get(document)
    if (known === undefined) this.#known.set(document, known = new Map())
    const key = operationName ?? ''
    let cost = known.get(key)
    if (cost === undefined) known.set(key, cost = operationCost(this.schema, document, operation, variables))
    return cost
  }
}

/** Whether a filter argument searches (`q`), at its top or inside `and`, `or` or `not`: a search reads every record either way. */
function searches (filter: unknown): boolean {
  if (Array.isArray(filter)) return filter.some(searches)
  if (typeof filter !== 'object' || filter === null) return false
  const input = filter as Record<string, unknown>
  return input.q != null || ['and', 'or', 'not'].some((key) => searches(input[key]))
}
