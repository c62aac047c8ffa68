/**
 * Raised by the handler timer (src/http/timeouts.ts) when a request has no
 * answer within `--handler-timeout`; ./classify.ts turns it into 408 (the
 * body never arrived) or 503 PROCESSING_TIMEOUT.
 */
export class HandlerTimeoutError extends Error {
  override name = 'HandlerTimeoutError'
  readonly code = 'RQS_HANDLER_TIMEOUT'
  readonly statusCode = 503
  constructor (readonly ms: number) {
    super(`No answer within ${ms} ms`)
  }
}
