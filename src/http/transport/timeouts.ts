import { STATUS_CODES, type Server } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ConnectionLimits } from '../../config.js'
import type { BoundLog } from './bound-log.js'
import { AppError, catalogueOf, type ErrorCode, errorsBase, HandlerTimeoutError } from '../errors/index.js'
import { ConnectionSweep } from './connection-sweep.js'
import { freshRequestId } from './request-id.js'
import { addStartStep, type HeaderObject, type RequestStart } from '../routes/index.js'

/**
 * Bounded time for every phase of a request, and a cap on connections
 * (issue 10, defects 1 and 9). Without them a client that sends part of a
 * request and waits holds its socket forever, and twenty thousand such
 * clients use up the process's file descriptors.
 *
 * | phase | limit | answer |
 * |---|---|---|
 * | request line + headers | `headersTimeoutMs` (Node's headersTimeout) | raw 408 problem, closed |
 * | body | `bodyTimeoutMs` from the end of the headers | 408 REQUEST_TIMEOUT in the service's shape, closed |
 * | whole request, socket level | headers + body + 5 s (Node's requestTimeout): the backstop for bodies no route reads | raw 408 problem, closed |
 * | routing to answer | `handlerTimeoutMs` | 503 PROCESSING_TIMEOUT in the service's shape (408 if the body is still missing) |
 * | idle keep-alive | `keepAliveTimeoutMs` | closed |
 * | nothing moving on a busy socket (a client that stops reading) | the largest limit above + 10 s | closed |
 * | open connections | `maxConnections` | new ones closed at once |
 *
 * Every cut is counted in the log (./bound-log.ts). 0 turns a limit off.
 *
 * Fastify 5.12's own `handlerTimeout` is not used: it clears its timer (and
 * aborts `request.signal`) when a request body has been read, because the
 * IncomingMessage emits 'close' then (fastify/fastify#6725), so it never
 * fires for a POST or PUT.
 */

/** Slack of the socket-level limits over the application-level ones, so the answer in the service's shape comes first. */
const BACKSTOP_SLACK_MS = 5000
const IDLE_SLACK_MS = 10_000

/** How long nothing may move on a connection (a client that stops reading): the largest limit + 10 s; 0 when one is off. */
export function idleLimitMs (limits: ConnectionLimits): number {
  const phases = [limits.headersTimeoutMs, limits.bodyTimeoutMs, limits.handlerTimeoutMs]
  return phases.every((ms) => ms > 0) ? Math.max(...phases) + IDLE_SLACK_MS : 0
}

/** Fastify and node:http options that apply the limits; `bounds` counts what they cut. */
export function serverLimitOptions (limits: ConnectionLimits, bounds: BoundLog): FastifyHttpOptions<Server> {
  const requestTimeout = limits.headersTimeoutMs > 0 && limits.bodyTimeoutMs > 0
    ? limits.headersTimeoutMs + limits.bodyTimeoutMs + BACKSTOP_SLACK_MS
    : 0
  const shortest = Math.min(...[limits.headersTimeoutMs, requestTimeout].filter((ms) => ms > 0), 4000)
  return {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout,
    // No node:http idle limit (server.timeout): it would arm a socket timer on every request. The request limits'
    // sweep closes the connections on which nothing moves (idleLimitMs), as it watches the requests' deadlines.
    connectionTimeout: 0,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout,
      // Node looks for expired requests on this period (30 s by default, which would stretch a 10 s limit to 40 s).
      connectionsCheckingInterval: Math.max(100, Math.floor(shortest / 4))
    },
    clientErrorHandler: function (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
      answerClientError(this, bounds, error, socket)
    }
  }
}

/**
 * The body and handler timers, the connection cap and the counting of what
 * the socket level cuts (with serverLimitOptions in the Fastify options).
 * Registered before any route.
 */
export interface RequestLimitsOptions {
  limits: ConnectionLimits
  bounds: BoundLog
  /**
   * Another step of every request's start (the request id's echo), run in this plugin's own onRequest
   * hook after the deadline's watch: one hook instead of two, as Fastify's hook runner costs each hook
   * a call and a step of its iteration on every request.
   */
  onRequest?: (request: FastifyRequest, reply: FastifyReply, headers?: HeaderObject) => void
  /** The server's one hook of synchronous start steps (the deadline's watch is its first); without it, a hook of its own. */
  start?: RequestStart
}

export const requestLimitsPlugin = fp(async function rqsRequestLimits (app: FastifyInstance, opts: RequestLimitsOptions) {
  const { limits, bounds, onRequest: step, start } = opts
  bounds.attach(app.log)
  app.addHook('onClose', (_instance, done) => { bounds.flush(); done() })

  // A client may half-close once its request is sent (`printf … | nc`). node:http then aborts the
  // request, so a static file was never sent: no answer at all. Answer it, then close (the limits
  // above still bound how long). A long-standing node:http property, not in its documentation.
  ;(app.server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true

  if (limits.maxConnections > 0) {
    app.server.maxConnections = limits.maxConnections
    app.server.on('drop', () => { bounds.count('connection-dropped') })
  }

  if (limits.handlerTimeoutMs > 0 || limits.bodyTimeoutMs > 0) {
    // Watched through the server's connections: nothing to do when a request ends (./connection-sweep.ts).
    // A connection silent past the idle limit is closed; counted when it was busy (a client that stopped reading).
    const idleMs = idleLimitMs(limits)
    const idle = idleMs > 0
      ? { ms: idleMs, onIdle: (socket: Socket) => { if (hasRequestInFlight(socket)) bounds.count('socket-idle'); socket.destroy() } }
      : undefined
    const sweep = new ConnectionSweep(sweepPeriod(limits), (reply, elapsedMs) => expired(reply, elapsedMs, limits, bounds), idle)
    sweep.attach(app.server)
    addStartStep(app, start, step === undefined
      ? function watchRequest (_request, reply) { sweep.watch(reply); return true }
      : function watchRequest (request, reply, headers) { sweep.watch(reply); step(request, reply, headers); return true })
    app.addHook('onClose', (_instance, done) => { sweep.stop(); done() })
  } else if (step !== undefined) {
    addStartStep(app, start, function startRequest (request, reply, headers) { step(request, reply, headers); return true })
  }
}, { name: 'rqs-request-limits', fastify: '5.x' })

function hasBody (request: FastifyRequest): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

/** How often the deadlines are checked: a twentieth of the shortest limit, between 10 ms and 1 s. */
export function sweepPeriod (limits: ConnectionLimits): number {
  const shortest = Math.min(...[limits.bodyTimeoutMs, limits.handlerTimeoutMs].filter((ms) => ms > 0))
  return Math.min(1000, Math.max(10, Math.floor(shortest / 20)))
}

/**
 * Both application-level limits of one request, asked on every sweep; true
 * once it needs no more watching. When the body has not fully arrived
 * `bodyTimeoutMs` after the headers: 408 with `Connection: close` (the rest
 * of that body will never be read). When no answer has been sent
 * `handlerTimeoutMs` after routing: HandlerTimeoutError. Both go through the
 * route's error handler (src/http/errors/classify.ts), so they come in the
 * service's shape.
 */
function expired (reply: FastifyReply, elapsedMs: number, limits: ConnectionLimits, bounds: BoundLog): boolean {
  if (reply.sent || reply.raw.destroyed) return true
  const request = reply.request
  const handlerMs = limits.handlerTimeoutMs
  const bodyMs = hasBody(request) ? limits.bodyTimeoutMs : 0
  const bodyFirst = bodyMs > 0 && (handlerMs === 0 || bodyMs < handlerMs)
  if (bodyFirst && elapsedMs >= bodyMs && !request.raw.complete) {
    bounds.count('body-timeout')
    reply.header('connection', 'close')
    reply.send(requestTimeout(bodyMs))
    return true
  }
  if (handlerMs > 0 && elapsedMs >= handlerMs) {
    bounds.count('handler-timeout')
    reply.send(new HandlerTimeoutError(handlerMs))
    return true
  }
  // Only a body limit, and the body came in time: nothing left to watch.
  return handlerMs === 0 && (bodyMs === 0 || request.raw.complete)
}

function requestTimeout (ms: number): AppError {
  return new AppError('REQUEST_TIMEOUT', `The request body did not arrive within ${ms} ms; the connection is closed`)
}

/** The socket has a request being received or a response being sent (not an idle keep-alive connection). */
function hasRequestInFlight (socket: Socket): boolean {
  // node:http keeps the response in flight on the socket; there is no public accessor.
  const http = socket as Socket & { _httpMessage?: unknown, parser?: { incoming?: { complete?: boolean } | null } | null }
  return http._httpMessage != null || (http.parser?.incoming != null && http.parser.incoming.complete !== true)
}

/**
 * What node:http cannot parse or waited too long for, answered before any
 * route sees it: a problem (we do not know which service the request was
 * for), then the connection is closed. Node's own behaviour, in our shape.
 */
function answerClientError (app: FastifyInstance, bounds: BoundLog, error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const timeout = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
  bounds.count(timeout ? 'headers-timeout' : 'malformed-request')
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage
  if (socket.writable && inFlight?.headersSent !== true) {
    // An answer to HEAD has no body; the bytes Node could not parse tell the method when it got that far.
    const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD '
    socket.write(timeout
      ? rawProblem(app, 408, 'REQUEST_TIMEOUT', 'The request did not arrive in time; the connection is closed', head)
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? rawProblem(app, 431, 'CLIENT_ERROR', 'The request headers are larger than the server accepts', head)
        : rawProblem(app, 400, 'CLIENT_ERROR', 'The request is not well-formed HTTP/1.1', head))
  }
  socket.destroySoon()
}

/** A complete HTTP/1.1 problem answer in English (no request was parsed, so no Accept-Language either). */
function rawProblem (app: FastifyInstance, status: number, code: ErrorCode, detail: string, head: boolean): string {
  const id = freshRequestId()
  const texts = catalogueOf(app).texts('en', code)
  const base = errorsBase(app)
  const body = JSON.stringify({
    type: base + code,
    title: texts.title,
    status,
    detail,
    traceId: id,
    errors: [{ error: code, message: texts.message, detail, help: base + code }]
  })
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
    `Content-Language: en\r\nX-Request-Id: ${id}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`
}
