import type { ErrorCatalogue, ErrorCode } from '../errors/index.js'
/**
 * What a route tells the API description beyond its JSON schemas, under the
 * `x-rqs` key of its route schema (Fastify ignores it; ./document.ts reads it
 * and removes it from the published document).
 */
export interface OperationNotes {
  /** How this route words its errors (the v1 envelope, problem details, GraphQL errors). */
  errorShape?: ErrorShapeDoc
  /**
   * Catalogue codes the route itself answers with. What every route of its
   * kind can answer (bad bodies, 406, 503, …) is added by ./document.ts.
   */
  errors?: readonly ErrorCode[]
  /** Conditional requests: 'read' (If-None-Match → 304, If-Match → 412) or 'write' (either → 412). */
  preconditions?: 'read' | 'write'
  /** Set on routes that read or write records: 503 STORE_UNAVAILABLE with Retry-After can happen. */
  store?: boolean
  /**
   * Parts of the operation that no Fastify schema carries because Fastify does
   * not validate them (GraphQL-over-HTTP parses its own requests), merged as they are.
   */
  document?: Record<string, unknown>
  /** Response headers by status, names of ./headers.ts components (Allow, Location, …). */
  headers?: Readonly<Record<number, readonly HeaderName[]>>
  /**
   * Another body a status may carry beside its response schema's (a bulk
   * create's array beside one record): the description offers both, and that
   * status's headers become optional, `headers` saying when they are absent.
   */
  alternatives?: Readonly<Record<number, { schema: unknown, headers: string }>>
}

/** The response headers the description knows (components.headers). */
export type HeaderName = 'ETag' | 'Location' | 'Link' | 'X-Total-Count' | 'Vary' | 'Retry-After' | 'X-Request-Id' | 'Allow' | 'Content-Language' | 'Deprecation' | 'Sunset' | 'Replaced-Record' | 'WWW-Authenticate' | 'RateLimit-Policy' | 'RateLimit'

/** How one error shape looks in the description: its schema, media types, statuses and examples. */
export interface ErrorShapeDoc {
  /** The body's schema: a named (titled) schema, so it becomes a component. */
  schema: unknown
  /** Media types of its answers; undefined means those of the representation's successful answers. */
  mediaTypes?: readonly string[]
  /** The status a code of the server's catalogue is answered with in this shape. */
  status: (code: ErrorCode, catalogue: ErrorCatalogue) => number
  /** An example body for a code of the server's catalogue at a path. */
  example: (code: ErrorCode, path: string, catalogue: ErrorCatalogue) => unknown
  /** Headers every answer in this shape has (Content-Language for translated problems). */
  headers?: readonly HeaderName[]
  /** Request headers that change the answer (Accept-Language for translated problems). */
  translated?: boolean
}

declare module 'fastify' {
  interface FastifySchema {
    'x-rqs'?: OperationNotes
  }
}
