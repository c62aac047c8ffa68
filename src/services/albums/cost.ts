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

/** A filter's fields that hold further filters. */
const COMBINATORS = new Set(['and', 'or', 'not'])

export type Variables = Readonly<Record<string, unknown>> | null | undefined

/**
 * What an operation costs for some variables: a constant when no weighed
 * argument names a variable (the common case), else a function of the
 * variables that adds up what the walk of the document left for them.
 */
export type Weight = number | ((variables: Variables) => number)

/** A weight for these variables. */
export function weigh (weight: Weight, variables: Variables): number {
  return typeof weight === 'number' ? weight : weight(variables)
}

/** The sum of weights: constants added once, when the walk is made. */
function sum (weights: readonly Weight[]): Weight {
  let constant = 0
  const variable: Array<(variables: Variables) => number> = []
  for (const w of weights) {
    if (typeof w === 'number') constant += w
    else variable.push(w)
  }
  if (variable.length === 0) return constant
  return (variables) => {
    let total = constant
    for (const w of variable) total += w(variables)
    return total
  }
}

function product (a: Weight, b: Weight): Weight {
  if (typeof a === 'number' && typeof b === 'number') return a * b
  return (variables) => weigh(a, variables) * weigh(b, variables)
}

/** The largest of weights that are each 0 or one amount (a search is one scan however often it is named). */
function anyOf (weights: readonly Weight[]): Weight {
  const variable: Array<(variables: Variables) => number> = []
  let constant = 0
  for (const w of weights) {
    if (typeof w === 'number') constant = Math.max(constant, w)
    else variable.push(w)
  }
  if (variable.length === 0 || constant > 0) return constant
  return (variables) => {
    let most = 0
    for (const w of variable) most = Math.max(most, w(variables))
    return most
  }
}

/** Whether a value (an argument) names a variable anywhere in it. */
function namesVariable (node: ValueNode): boolean {
  switch (node.kind) {
    case Kind.VARIABLE: return true
    case Kind.OBJECT: return node.fields.some((f) => namesVariable(f.value))
    case Kind.LIST: return node.values.some(namesVariable)
    default: return false
  }
}

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
  return weigh(operationWeight(schema, document, operation), variables)
}

/**
 * The cost of an operation as a weight: the document is walked once, and
 * only the arguments that name variables (`first: $n`, `filter: $f`) are
 * read again for each request's variables.
 */
export function operationWeight (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Weight {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
  const defaults = new Map<string, ValueNode>()
  for (const v of operation.variableDefinitions ?? []) if (v.defaultValue !== undefined) defaults.set(v.variable.name.value, v.defaultValue)
  /** A literal or a variable's value, as plain JavaScript (what the cost needs: numbers, strings, objects). */
  const valueOf = (node: ValueNode | undefined, variables: Variables): unknown => {
    if (node === undefined) return undefined
    switch (node.kind) {
      case Kind.VARIABLE: {
        const name = node.name.value
        return variables != null && Object.hasOwn(variables, name) ? variables[name] : valueOf(defaults.get(name), undefined)
      }
      case Kind.INT: return Number(node.value)
      case Kind.STRING: return node.value
      case Kind.NULL: return null
      case Kind.OBJECT: return Object.fromEntries(node.fields.map((f) => [f.name.value, valueOf(f.value, variables)]))
      // A filter's `and`/`or` hold further filters, which may search.
      case Kind.LIST: return node.values.map((v) => valueOf(v, variables))
      default: return true // a value is given; its content does not weigh
    }
  }
  /** What an argument weighs: read now when it names no variable, else for each request's variables. */
  const argumentWeight = (node: ValueNode | undefined, weight: (value: unknown) => number): Weight =>
    node !== undefined && namesVariable(node) ? (variables) => weight(valueOf(node, variables)) : weight(valueOf(node, undefined))
  /**
   * SCAN_COST when a filter argument searches (`q`, at its top or inside
   * `and`, `or`, `not`), else 0; read from the document, so that only a
   * variable where a search can be (`q: $q`, `filter: $f`) is read per
   * request, and a condition's variable (`age: {gte: $age}`) never is.
   */
  const searchWeight = (node: ValueNode | undefined): Weight => {
    if (node === undefined) return 0
    switch (node.kind) {
      case Kind.VARIABLE: return (variables) => searches(valueOf(node, variables)) ? SCAN_COST : 0
      case Kind.LIST: return anyOf(node.values.map(searchWeight))
      case Kind.OBJECT: return anyOf(node.fields.map((field): Weight => {
        if (field.name.value === 'q') return field.value.kind === Kind.VARIABLE ? (variables) => valueOf(field.value, variables) != null ? SCAN_COST : 0 : field.value.kind === Kind.NULL ? 0 : SCAN_COST
        return COMBINATORS.has(field.name.value) ? searchWeight(field.value) : 0
      }))
      default: return 0
    }
  }
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType()
  const active = new Set<string>()

  const walk = (set: SelectionSetNode, type: GraphQLNamedType | null | undefined): Weight => {
    const cost: Weight[] = []
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition === undefined ? type : schema.getType(selection.typeCondition.name.value)
        cost.push(walk(selection.selectionSet, on))
        continue
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value
        const fragment = fragments.get(name)
        if (fragment === undefined || active.has(name)) continue
        active.add(name)
        cost.push(walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value)))
        active.delete(name)
        continue
      }
      const name = selection.name.value
      if (name === '__typename') continue
      const field = type !== null && type !== undefined && isObjectType(type) ? type.getFields()[name] : undefined
      const fieldType = field === undefined ? undefined : getNamedType(field.type)
      if (selection.selectionSet === undefined) { cost.push(1); continue }
      const argument = (arg: string): ValueNode | undefined => selection.arguments?.find((a) => a.name.value === arg)?.value
      if (fieldType !== undefined && isConnection(fieldType) && field?.args.some((a) => a.name === 'first') === true) {
        const first = argumentWeight(argument('first'), (value) => typeof value === 'number' ? Math.max(0, value) : DEFAULT_FIRST)
        const search = searchWeight(argument('filter'))
        cost.push(1, search, connectionCost(selection.selectionSet, fieldType, first))
        continue
      }
      if (field !== undefined && isListType(getNullableType(field.type)) && field.args.some((a) => a.name === 'first')) {
        // A back-relation (books_via_author): up to `first` records (default and most: the cap), each what it selects.
        const first = argumentWeight(argument('first'), (value) => typeof value === 'number' ? Math.min(Math.max(0, value), BACK_RELATION_CAP) : BACK_RELATION_CAP)
        cost.push(1, product(first, walk(selection.selectionSet, fieldType)))
        continue
      }
      // A list of references (tags: [Tag!]!): as many records as it may hold, each what it selects.
      const most = field?.extensions.mostItems
      cost.push(1, product(typeof most === 'number' ? most : 1, walk(selection.selectionSet, fieldType)))
    }
    return sum(cost)
  }

  /** A connection's own selections: `nodes` and `edges` once per record of the page, `totalCount` a scan, the rest once. */
  const connectionCost = (set: SelectionSetNode, type: GraphQLNamedType, first: Weight): Weight => {
    const cost: Weight[] = []
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) { cost.push(connectionCost(selection.selectionSet, type, first)); continue }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value)
        if (fragment === undefined || active.has(fragment.name.value)) continue
        active.add(fragment.name.value)
        cost.push(connectionCost(fragment.selectionSet, type, first))
        active.delete(fragment.name.value)
        continue
      }
      const name = selection.name.value
      if (name === 'totalCount') cost.push(SCAN_COST)
      else if ((name === 'nodes' || name === 'edges') && selection.selectionSet !== undefined) {
        const field = isObjectType(type) ? type.getFields()[name] : undefined
        cost.push(1, product(first, walk(selection.selectionSet, field === undefined ? undefined : getNamedType(field.type))))
      } else if (name !== '__typename') cost.push(1, selection.selectionSet === undefined ? 0 : walk(selection.selectionSet, isObjectType(type) ? getNamedType(type.getFields()[name]?.type) : undefined))
    }
    return sum(cost)
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
 * (QUERY_TOO_COSTLY, saying the cost and the budget). Each operation is
 * walked once per document (the engine caches documents): what is left for
 * each request is reading the arguments that name variables.
 */
export class CostBudget {
  /** Each operation's weight by prepared document (the engine's cache bounds the documents) and operation name. */
  readonly #weights = new WeakMap<DocumentNode, Map<string, Weight>>()

  /** `max`: the budget (`--graphql-max-cost`); 0 weighs nothing. */
  constructor (private readonly schema: GraphQLSchema, readonly max: number) {}

  check (document: DocumentNode, operationName: string | null | undefined, variables: Variables): GraphQLError | undefined {
    if (this.max === 0) return undefined
    const operation = getOperationAST(document, operationName)
    if (operation == null) return undefined // the caller says which operation is missing
    const cost = weigh(this.weightOf(document, operation, operationName), variables)
    if (cost <= this.max) return undefined
    return new GraphQLError(
      `The query costs ${cost}, more than the budget of ${this.max} a document may cost (--graphql-max-cost). Each list costs its \`first\` (default ${DEFAULT_FIRST}) times the fields of one record, and \`totalCount\` and a text search (\`filter: {q}\`) ${SCAN_COST} each: ask for fewer records, fields, counts or searches, or split the query.`,
      { nodes: operation, extensions: { code: GRAPHQL_CODES.tooCostly, cost, budget: this.max } }
    )
  }

  /** The operation's weight, walked on its document's first use (for tests: whether it was kept). */
  weightOf (document: DocumentNode, operation: OperationDefinitionNode, operationName: string | null | undefined): Weight {
    let known = this.#weights.get(document)
    if (known === undefined) this.#weights.set(document, known = new Map())
    const key = operationName ?? ''
    let weight = known.get(key)
    if (weight === undefined) known.set(key, weight = operationWeight(this.schema, document, operation))
    return weight
  }
}

/** Whether a filter argument searches (`q`), at its top or inside `and`, `or` or `not`: a search reads every record either way. */
function searches (filter: unknown): boolean {
  if (Array.isArray(filter)) return filter.some(searches)
  if (typeof filter !== 'object' || filter === null) return false
  const input = filter as Record<string, unknown>
  return input.q != null || [...COMBINATORS].some((key) => searches(input[key]))
}
