import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { GraphQLError, type ExecutionResult } from 'graphql'
import { parseRequestParams, type Request, type RequestParams, type Response } from 'graphql-http'
import { jsonNestingDepth, MAX_JSON_DEPTH } from '../../http/rest/index.js'
import { GRAPHQL_CODES } from './codes.js'
import { INTERNAL_MESSAGE } from './replies.js'

/**
 * No answer of the album service carries an internal error text (issue 10,
 * defect 2: "Maximum call stack size exceeded" reached clients). Errors the
 * client can act on keep their message; anything unexpected is logged with
 * the request id and answered with a generic message.
 */

export { INTERNAL_MESSAGE }
export const UNPROCESSABLE_MESSAGE = 'The request could not be processed.'

/** The context is the response media type negotiated from Accept (see routes.ts). */
type GraphQLHttpRequest = Request<FastifyRequest, string>

/**
 * Errors coded INTERNAL_SERVER_ERROR (a resolver or the executor failed, a
 * stack overflow included) lose their message and location in the answer; the
 * originals go to the log.
 */
export function concealInternalErrors (result: ExecutionResult, log: FastifyBaseLogger): ExecutionResult {
  if (result.errors === undefined || !result.errors.some(isInternal)) return result
  return {
    ...result,
    errors: result.errors.map((error) => {
      if (!isInternal(error)) return error
      log.error({ err: error.originalError ?? error, path: error.path }, 'album query failed')
      return new GraphQLError(INTERNAL_MESSAGE, { path: error.path, extensions: { code: GRAPHQL_CODES.internal } })
    })
  }
}

function isInternal (error: GraphQLError): boolean {
  return error.extensions.code === GRAPHQL_CODES.internal
}

/**
 * graphql-http's request parsing, with two additions: a JSON body nested
 * deeper than any request needs is refused with NESTING_TOO_DEEP (400), and
 * a failure other than graphql-http's own client messages (which are plain
 * Errors: "Missing query", "Unparsable JSON body", ...) is logged and answered
 * generically.
 */
export async function parseParamsSafely (req: GraphQLHttpRequest): Promise<RequestParams | Response> {
  if (req.method === 'POST' && typeof req.body === 'string' && jsonNestingDepth(req.body, MAX_JSON_DEPTH) < 0) {
    const body = JSON.stringify({ errors: [{ message: `The request body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels.`, extensions: { code: GRAPHQL_CODES.nestingTooDeep } }] })
    return [body, { status: 400, statusText: 'Bad Request', headers: { 'content-type': req.context } }]
  }
  try {
    return await parseRequestParams(req)
  } catch (err) {
    if (isClientMessage(err)) throw err
    req.raw.log.error({ err }, 'GraphQL request parameters could not be read')
    throw new Error(UNPROCESSABLE_MESSAGE, { cause: err })
  }
}

/** graphql-http words the client's mistakes as plain Errors; any subclass (TypeError, RangeError...) is a fault. */
export function isClientMessage (error: unknown): error is Error {
  return error instanceof Error && error.constructor === Error
}
