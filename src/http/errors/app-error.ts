import type { ErrorCode } from './catalogue.js'

/** One thing that went wrong: a catalogue code, a developer detail and, for FIELD_* codes, the field. */
export interface Failure {
  code: ErrorCode
  detail: string
  /** Substituted for `{field}` in the translated message. */
  field?: string
}

export interface AppErrorOptions {
  /** The entries of a problem's `errors`; default one entry with the error's own code and detail. */
  errors?: Failure[]
  /** Extra response headers (Allow, Retry-After, ...). */
  headers?: Record<string, string>
  /** Overrides the catalogue status (only CLIENT_ERROR needs this). */
  status?: number
  /** Values a service's own wording fills in (the id of a missing record, say). */
  args?: Readonly<Record<string, string | number>>
  /** What the failure is about, as for schema validation: the request body, or the query string's values. */
  subject?: 'body' | 'query'
}

/**
 * Throw from a route, hook or parser to fail with a catalogue code. The error
 * pipeline (./classify.ts) takes it as it is; each service renders it in its
 * own shape. `message` is the developer detail.
 */
export class AppError extends Error {
  override name = 'AppError'
  readonly code: ErrorCode
  /** The status when it overrides the code's; otherwise the server's catalogue gives it (./classify.ts). */
  readonly statusCode: number | undefined
  readonly options: AppErrorOptions

  constructor (code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail)
    this.code = code
    this.statusCode = options.status
    this.options = options
  }
}
