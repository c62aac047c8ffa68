/**
 * The backing database cannot be reached or cannot write right now. The HTTP
 * layer answers 503 with Retry-After in the service's own error shape.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
  constructor (message = 'The data store is unavailable', options?: { cause?: unknown }) {
    super(message, options)
  }
}
