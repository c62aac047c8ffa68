import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyInstance, HTTPMethods, preParsingHookHandler, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../errors/index.js'

/**
 * The headers that describe a request's content, read before Fastify parses
 * it (issue 19). Attached to the routes that can receive content as they are
 * added, so a GET route pays nothing.
 *
 * - `Content-Encoding`: rqs reads bodies as they are sent. A coded body
 *   (gzip, br, …) used to be parsed as if it were plain JSON; it is refused
 *   with 415 UNSUPPORTED_CONTENT_ENCODING and `Accept-Encoding: identity`
 *   (RFC 9110 §8.4.1, RFC 7694 §3). Decoding was not chosen: bodies are small
 *   JSON records under a 1 MiB limit, and an inflater is one more place for
 *   a zip bomb.
 * - `Content-Type` without content: many clients send `Content-Type:
 *   application/json` on every request. On DELETE and OPTIONS, which take no
 *   content here, a request without any is answered as if the header were
 *   absent (it used to be 400 "JSON expected"). POST and PUT keep their 400:
 *   they need a body. (GET and HEAD bodies are never read at all.)
 */

/** Methods whose requests carry no content in this API, though Fastify reads a body for them. */
const CONTENTLESS_METHODS: ReadonlySet<string> = new Set(['DELETE', 'OPTIONS'])
/** Methods Fastify never reads a body for. */
const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'TRACE', 'CONNECT'])

export const SUPPORTED_CONTENT_CODINGS = ['identity'] as const

export const bodyHeadersPlugin = fp(async function rqsBodyHeaders (app: FastifyInstance) {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods: readonly HTTPMethods[] = Array.isArray(route.method) ? route.method : [route.method as HTTPMethods]
    if (methods.every((m) => BODYLESS_METHODS.has(m))) return
    const contentless = methods.some((m) => CONTENTLESS_METHODS.has(m))
    const readContentHeaders: preParsingHookHandler = (request, _reply, payload, done) => {
      const headers = request.raw.headers
      if (!hasContent(headers)) {
        // Fastify reads no body when a request has neither content nor a Content-Type.
        if (contentless && headers['content-type'] !== undefined && CONTENTLESS_METHODS.has(request.method)) delete headers['content-type']
        done(null, payload)
        return
      }
      const coding = headers['content-encoding']
      done(coding === undefined || isIdentity(coding) ? null : unsupportedCoding(coding), payload)
    }
    route.preParsing = [...hooks(route.preParsing), readContentHeaders]
  })
}, { name: 'rqs-body-headers', fastify: '5.x' })

/** Whether the request has content to read: a length above zero, or a chunked body. */
function hasContent (headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true
  const length = headers['content-length']
  return length !== undefined && length !== '0'
}

/** `identity` (or nothing) in every member of the list: the content as it is. */
function isIdentity (coding: string): boolean {
  return coding.split(',').every((c) => { const token = c.trim().toLowerCase(); return token === '' || token === 'identity' })
}

function unsupportedCoding (coding: string): AppError {
  const supported = SUPPORTED_CONTENT_CODINGS.join(', ')
  return new AppError('UNSUPPORTED_CONTENT_ENCODING', `Content-Encoding "${coding.slice(0, 100)}" is not supported: send the body uncompressed (supported: ${supported})`, {
    headers: { 'accept-encoding': supported }
  })
}

function hooks<T> (value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}
