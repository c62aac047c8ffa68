import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../errors/index.js'
/**
 * How deep a JSON request body may nest arrays and objects (issue 10, defect
 * 5). Every body rqs accepts is a flat object (GraphQL variables: an object of
 * strings), so 64 levels leave ample room, while code that walks a parsed value
 * recursively (prototype scans, exact-integer re-parsing, validators) can never
 * run out of stack on what passes.
 */
export const MAX_JSON_DEPTH = 64

/**
 * The deepest nesting of `[` and `{` in a JSON text, or -1 as soon as it
 * passes `limit` (so a hostile body costs one pass at most). Brackets inside
 * strings do not count. The text need not be valid JSON: the parser that runs
 * afterwards judges that.
 */
export function jsonNestingDepth (text: string, limit: number): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
      continue
    }
    if (c === 34) {
      inString = true
    } else if (c === 91 || c === 123) {
      if (++depth > limit) return -1
      if (depth > deepest) deepest = depth
    } else if (c === 93 || c === 125) {
      depth--
    }
  }
  return deepest
}

/**
 * Whether a JSON text nests deeper than `limit`. Each level takes a
 * character, so a text no longer than the limit cannot (a create's body is
 * shorter than that): it is not walked.
 */
export function nestsTooDeep (text: string, limit = MAX_JSON_DEPTH): boolean {
  return text.length > limit && jsonNestingDepth(text, limit) < 0
}

/** The error a too-deep JSON body is answered with (400 NESTING_TOO_DEEP in the service's shape). */
export function jsonTooDeepError (limit = MAX_JSON_DEPTH): AppError {
  return new AppError('NESTING_TOO_DEEP', `The request body nests arrays or objects deeper than ${limit} levels`)
}

type BodyParser = (request: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => void

/** Wraps a string body parser so that a body nested deeper than the limit is refused before it is parsed. */
export function depthLimited (parser: BodyParser, limit = MAX_JSON_DEPTH): BodyParser {
  return function parseDepthLimited (request, body, done) {
    if (nestsTooDeep(body, limit)) {
      done(jsonTooDeepError(limit))
      return
    }
    parser(request, body, done)
  }
}

/**
 * Replaces Fastify's JSON parser (application/json and the versioned media
 * types) by the same parser behind the depth check, for every route that does
 * not install its own.
 */
export function installDepthLimitedJson (app: FastifyInstance, versionedJson: RegExp): void {
  const parser = depthLimited(app.getDefaultJsonParser('error', 'error') as BodyParser)
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parser)
  app.addContentTypeParser(versionedJson, { parseAs: 'string' }, parser)
}
