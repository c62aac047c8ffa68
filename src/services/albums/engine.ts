import {
  execute as executeWithGraphqlJs, getOperationAST, GraphQLError, parse, specifiedRules, validate,
  type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema, type ValidationRule
} from 'graphql'
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit'
import { LRUCache } from 'lru-cache'
import { GRAPHQL_CODES, noIntrospectionRule, queryLimitsRule, type QueryLimits } from './limits.js'
import { isTokenLimitError, MAX_TOKENS, nestingLimit, nestingTooDeep, nestsDeeperThan } from './document-limits.js'

export interface EngineOptions extends QueryLimits {
  maxDocumentBytes: number
  introspection: boolean
  documentCacheSize: number
}

/** A document as the cache keeps it: parsed and validated once, compiled per operation on first use. */
interface PreparedDocument {
  document: DocumentNode
  /** Compiled queries by operation name ('' for the only operation). Only successes are kept, so the map stays as small as the document. */
  compiled: Map<string, CompiledQuery>
}

export type Prepared = { document: DocumentNode, errors?: undefined } | { document?: undefined, errors: readonly GraphQLError[] }

/**
 * Turns query text into something executable as cheaply as possible: a
 * bounded LRU keyed by the text holds the parsed and validated document (or
 * its errors, which are as deterministic), and graphql-jit compiles each
 * operation once. graphql-js executes whatever graphql-jit cannot compile.
 */
export class QueryEngine {
  private readonly cache: LRUCache<string, Prepared>
  private readonly preparedByDocument = new WeakMap<DocumentNode, PreparedDocument>()
  private readonly rules: readonly ValidationRule[]
  private readonly limitRules: readonly ValidationRule[]
  private readonly nestingLimit: number

  /** Where subscriptions are served, for the message that sends them there. */
  streamPath = '/graphql/stream'

  constructor (readonly schema: GraphQLSchema, private readonly options: EngineOptions) {
    this.cache = new LRUCache({ max: Math.max(1, options.documentCacheSize) })
    this.nestingLimit = nestingLimit(options.maxDepth)
    this.limitRules = [queryLimitsRule(options)]
    this.rules = [...specifiedRules, ...(options.introspection ? [] : [noIntrospectionRule])]
  }

  /** Parsed and validated document for a query text, or the errors that stop it. */
  prepare (query: string): Prepared {
    // Characters never outnumber UTF-8 bytes: an over-long text is refused before it is hashed as a cache key.
    if (query.length > this.options.maxDocumentBytes) return this.tooLarge()
    const cached = this.cache.get(query)
    if (cached !== undefined) return cached
    if (Buffer.byteLength(query) > this.options.maxDocumentBytes) return this.tooLarge()
    const prepared = this.parseAndValidate(query)
    this.cache.set(query, prepared)
    return prepared
  }

  private tooLarge (): Prepared {
    return { errors: [new GraphQLError(`The GraphQL document is larger than ${this.options.maxDocumentBytes} bytes.`, { extensions: { code: GRAPHQL_CODES.tooLarge } })] }
  }

  private parseAndValidate (query: string): Prepared {
    // graphql-js parses by recursive descent: a document nested too deeply is refused before it can exhaust the stack.
    if (nestsDeeperThan(query, this.nestingLimit)) return { errors: [nestingTooDeep(this.nestingLimit)] }
    let document: DocumentNode
    try {
      document = parse(query, { noLocation: false, maxTokens: MAX_TOKENS })
    } catch (err) {
      if (!(err instanceof GraphQLError)) throw err
      return { errors: [withCode(err, isTokenLimitError(err) ? GRAPHQL_CODES.tooLarge : GRAPHQL_CODES.parseFailed)] }
    }
    // The shape limits first and alone: the standard rules then only see documents within them
    // (OverlappingFieldsCanBeMerged is quadratic: 2 700 copies of one field in 16 KB took 300 ms).
    const limitErrors = validate(this.schema, document, this.limitRules)
    if (limitErrors.length > 0) return { errors: limitErrors.map((e) => withCode(e, GRAPHQL_CODES.validationFailed)) }
    const errors = validate(this.schema, document, this.rules)
    if (errors.length > 0) return { errors: errors.map((e) => withCode(e, GRAPHQL_CODES.validationFailed)) }
    this.preparedByDocument.set(document, { document, compiled: new Map() })
    return { document }
  }

  /** Executes a document that `prepare` returned (the graphql-http `execute` hook). */
  execute (args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
    const operation = getOperationAST(args.document, args.operationName)
    if (operation != null && operation.operation === 'subscription') {
      // Subscriptions stream over SSE (graphql-sse) at the stream endpoint, not in one answer here.
      const message = this.schema.getSubscriptionType() == null
        ? 'This service has no subscriptions.'
        : `Subscriptions run over Server-Sent Events (the graphql-sse protocol) at ${this.streamPath}.`
      return { errors: [new GraphQLError(message, { nodes: operation, extensions: { code: GRAPHQL_CODES.operationNotSupported } })] }
    }
    if (operation != null && operation.operation === 'mutation' && this.schema.getMutationType() == null) {
      // The schema has no mutation type; say so plainly instead of graphql-js's generic message.
      return { errors: [new GraphQLError('This service answers queries only; it has no mutations.', { nodes: operation, extensions: { code: GRAPHQL_CODES.operationNotSupported } })] }
    }
    const compiled = this.compiled(args)
    const result = compiled === undefined
      ? executeWithGraphqlJs(args)
      : compiled.query(args.rootValue, args.contextValue, args.variableValues ?? {})
    return isPromise(result) ? result.then(withResultCodes) : withResultCodes(result)
  }

  /** Whether an operation of a prepared document runs compiled (for tests and diagnostics). */
  isCompiled (document: DocumentNode, operationName?: string): boolean {
    return this.preparedByDocument.get(document)?.compiled.has(operationName ?? '') ?? false
  }

  /** graphql-jit's fast serialiser for an error-free result of a compiled document; JSON.stringify otherwise. */
  stringify (args: ExecutionArgs, result: ExecutionResult): string {
    if (result.errors === undefined) {
      const compiled = this.preparedByDocument.get(args.document)?.compiled.get(args.operationName ?? '')
      if (compiled !== undefined) return compiled.stringify(result)
    }
    return JSON.stringify(result)
  }

  private compiled (args: ExecutionArgs): CompiledQuery | undefined {
    const prepared = this.preparedByDocument.get(args.document)
    if (prepared === undefined) return undefined
    const key = args.operationName ?? ''
    const known = prepared.compiled.get(key)
    if (known !== undefined) return known
    let compiled: CompiledQuery | ExecutionResult
    try {
      compiled = compileQuery(this.schema, args.document, args.operationName ?? undefined, { customJSONSerializer: true })
    } catch {
      return undefined
    }
    if (!isCompiledQuery(compiled)) return undefined
    prepared.compiled.set(key, compiled)
    return compiled
  }
}

function isPromise<T> (value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function'
}

/** A copy of a GraphQL error carrying `extensions.code` (kept when it already has one). */
export function withCode (error: GraphQLError, code: string): GraphQLError {
  // graphql-jit builds some errors without an extensions object.
  const extensions = error.extensions as GraphQLError['extensions'] | undefined
  if (extensions?.code !== undefined) return error
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...extensions, code }
  })
}

/**
 * Errors without data are request errors (variables that do not coerce, an
 * unknown operation name): the client's fault. Errors beside data come from
 * resolvers, which here cannot fail unless something is broken.
 */
function withResultCodes (result: ExecutionResult): ExecutionResult {
  if (result.errors === undefined || result.errors.length === 0) return result
  const code = result.data === undefined ? GRAPHQL_CODES.badUserInput : GRAPHQL_CODES.internal
  return { ...result, errors: result.errors.map((e) => withCode(e, code)) }
}
