/**
 * The catalogue codes (src/http/errors/catalogue.ts) the record layer refuses
 * a query with. The layer imports no transport: each answers a refusal in its
 * own shape (REST through src/http/errors/classify.ts, the CLI as a usage error).
 */
export type QueryRefusalCode = 'INVALID_QUERY' | 'INVALID_CURSOR' | 'VALIDATION_FAILED' | 'FIELD_OUT_OF_RANGE' | 'FIELD_INVALID' | 'TOO_MANY_GROUPS'

/** One thing wrong with a query: a code, a developer detail and the parameter concerned. */
export interface QueryFailure {
  code: QueryRefusalCode
  detail: string
  field?: string
}

export interface QueryRefusalOptions {
  /** One entry per failure; default one entry with the refusal's own code and detail. */
  errors?: QueryFailure[]
  /** Set when the failure is about a value the query string's schema would refuse. */
  subject?: 'query'
}

/**
 * A query the record layer refuses (an unknown parameter, a foreign cursor, a
 * page too large). It takes the arguments of AppError, which the HTTP layer
 * answers it as, word for word.
 */
export class QueryRefused extends Error {
  override name = 'QueryRefused'
  readonly code: QueryRefusalCode
  readonly options: QueryRefusalOptions

  constructor (code: QueryRefusalCode, detail: string, options: QueryRefusalOptions = {}) {
    super(detail)
    this.code = code
    this.options = options
  }
}
