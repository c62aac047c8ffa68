/**
 * Helpers for route schemas: a response schema as the API description shows
 * it. Fastify ignores the extra keys when it compiles the serialiser.
 */

/** A response schema with the description the document shows for its status. */
export function answer<T extends object> (schema: T, description: string): T {
  return { ...schema, 'x-response-description': description }
}

/** An answer without a body (204). */
export function noBody (description: string): { type: 'null', description: string } {
  return { type: 'null', description }
}

/** The tag of the server's own resources: entry point, health, error catalogue, the API document. */
export const SERVER_TAG = 'server'

/** An HTML page as one of a response's media types. */
export const HTML_PAGE = { schema: { type: 'string', description: 'An HTML page.' } } as const
