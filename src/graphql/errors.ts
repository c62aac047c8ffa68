import type { FastifyError, FastifyRequest } from 'fastify'
import { GraphQLError } from 'graphql'
import { catalogueOf, negotiateLanguage } from '../http/errors/index.js'
import { classifyError } from '../http/errors/classify.js'

/**
 * Errors of the collection fields in GraphQL's shape with REST's words: the
 * catalogue code in `extensions.code`, the message translated by the
 * request's Accept-Language as REST's problem entries are, REST's developer
 * detail in `extensions.detail` and, as REST's `errors` member, one entry per
 * failure in `extensions.errors` (`{code, field, message, detail}`).
 */

/** What a resolver's thrown error becomes; a fault the server did not expect is thrown on (the service conceals and logs it). */
export function codedError (error: unknown, request: FastifyRequest): GraphQLError {
  if (error instanceof GraphQLError) return error
  const classified = classifyError(error as FastifyError, request)
  if (classified.unexpected === true) throw error
  const catalogue = catalogueOf(request.server)
  const language = negotiateLanguage(request.headers['accept-language'])
  const failures = classified.errors ?? [{ code: classified.code, detail: classified.detail }]
  return new GraphQLError(catalogue.texts(language, classified.code).message, {
    originalError: error instanceof Error ? error : undefined,
    extensions: {
      code: classified.code,
      detail: classified.detail,
      errors: failures.map((f) => ({
        code: f.code,
        ...(f.field === undefined ? {} : { field: f.field }),
        message: fill(catalogue.texts(language, f.code).message, f.field),
        detail: f.detail
      }))
    }
  })
}

function fill (message: string, field: string | undefined): string {
  return field === undefined ? message : message.replace('{field}', field)
}
