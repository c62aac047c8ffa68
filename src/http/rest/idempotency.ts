import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { IdempotencyKeyUsedError, type KeptAnswer, type KeptWrite, type KeptWrites, type KeyedWrite } from '../../domain/index.js'
import { AppError } from '../errors/index.js'
/**
 * The `Idempotency-Key` request header on writes (draft-ietf-httpapi-
 * idempotency-key-header). A write sent with a key is done once: its answer
 * (status, Location/ETag, body) is kept by the store in the write's own
 * transaction, and a retry with the same key and the same request gets that
 * answer again, with `Idempotent-Replayed: true`, instead of writing again.
 * The same key on a different request is 422 IDEMPOTENCY_KEY_REUSED. Without
 * the header nothing here changes what a route does.
 */

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'

/** 1 to 255 visible ASCII characters: a UUID fits, whitespace and lists do not. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

/** What a write route answers. */
export interface WriteAnswer {
  status: number
  /** The headers that describe the result (Location, ETag); kept with the answer. */
  headers?: Record<string, string>
  /** Serialised by the route's response schema for `status`; none for 204. */
  body?: unknown
  /** The body already serialised as JSON (an answer the route's response schema does not describe: a bulk create's array). */
  text?: string
}

/**
 * Given to a route's work: wraps the function that turns the store's result
 * into the route's answer, for the store to call inside its transaction.
 * Undefined when the request has no key (the store then writes as before).
 */
export type Keep = <R>(render: (result: R) => WriteAnswer | undefined) => KeyedWrite<R> | undefined

/** The Keep of a request without a key: the store writes as it would without one. */
const KEEP_NOTHING: Keep = () => undefined

/**
 * Runs a write route with Idempotency-Key support. `work` does what the route
 * did before and returns its answer; it passes `keep(render)` to the store
 * write, `render` mapping the store's result to the answer (undefined when the
 * write changed nothing, e.g. not found: then nothing is kept).
 */
export function answerOnce<Request extends FastifyRequest> (
  request: Request,
  reply: FastifyReply,
  store: KeptWrites,
  work: (keep: Keep, request: Request) => Promise<WriteAnswer>,
  scope?: string
): Promise<unknown> {
  // Not an async function: without a key (most writes) the route's work is its answer's promise, with no
  // frame of this function's own to resume. A throw is still a rejection, as from an async function.
  try {
    const key = scopedKey(idempotencyKey(request), scope)
    // Without a key: the route's work as it is (a route may define it once, taking the request, so no closure is made per request).
    if (key === undefined) return work(KEEP_NOTHING, request).then((answer) => answerPayload(reply, answer))
    return answerKeyed(request, reply, store, work, key)
  } catch (err) {
    return Promise.reject(err)
  }
}

/**
 * answerOnce for a route whose work is one store write: `write` gets the
 * keyed write to pass to the store (undefined without a key) and `render`
 * turns the store's result into the answer. Without a key that is one step
 * after the store's promise (no promise of the route's own work in between);
 * a route may define both once, so a write without a key makes no closure.
 */
export function answerWrite<Request extends FastifyRequest, R> (
  request: Request,
  reply: FastifyReply,
  store: KeptWrites,
  write: (keyed: KeyedWrite<R> | undefined, request: Request) => Promise<R>,
  render: (result: R) => WriteAnswer,
  scope?: string
): Promise<unknown> {
  try {
    const key = scopedKey(idempotencyKey(request), scope)
    if (key === undefined) return write(undefined, request).then((result) => answerPayload(reply, render(result)))
    return answerKeyed(request, reply, store, (keep, keyedRequest) => write(keep(render), keyedRequest).then(render), key)
  } catch (err) {
    return Promise.reject(err)
  }
}

/** answerOnce with a key: a replay of the kept answer, or the write done once and its answer kept. */
async function answerKeyed<Request extends FastifyRequest> (
  request: Request,
  reply: FastifyReply,
  store: KeptWrites,
  work: (keep: Keep, request: Request) => Promise<WriteAnswer>,
  key: string
): Promise<FastifyReply> {
  const fingerprint = requestFingerprint(request)
  // Looked up before the route's own checks: a retry after success must not
  // fail a precondition that its own first attempt changed.
  const earlier = await store.keptWrite?.(key)
  if (earlier !== undefined) return replay(reply, earlier, fingerprint)

  let kept: KeptAnswer | undefined
  const keep: Keep = (render) => ({
    key,
    fingerprint,
    answer: (result) => {
      const answer = render(result)
      kept = answer === undefined ? undefined : serialise(reply, answer)
      return kept
    }
  })
  let answer: WriteAnswer
  try {
    answer = await work(keep, request)
  } catch (err) {
    // Another request with this key wrote first (it committed while we waited).
    if (err instanceof IdempotencyKeyUsedError) return replay(reply, err.kept, fingerprint)
    throw err
  }
  return kept === undefined ? sendAnswer(reply, answer) : sendKept(reply, kept)
}

/**
 * The key a write's answer is kept under: the client's key, or with a
 * `scope` (the caller, where record rules make answers differ by caller) a
 * digest of both, so a replay by another caller is never served the first
 * caller's answer: it is another key, a write of its own.
 */
export function scopedKey (key: string | undefined, scope: string | undefined): string | undefined {
  if (key === undefined || scope === undefined) return key
  return `~${createHash('sha256').update(`${scope}\n${key}`).digest('base64url')}`
}

/** The key of a request, or undefined; 400 IDEMPOTENCY_KEY_INVALID when it is malformed. */
export function idempotencyKey (request: FastifyRequest): string | undefined {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER]
  if (raw === undefined) return undefined
  // A structured-field string ("…", as the draft writes it) or the bare key.
  const key = typeof raw === 'string' && raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new AppError('IDEMPOTENCY_KEY_INVALID', 'The Idempotency-Key header must be sent once, as 1 to 255 visible ASCII characters without spaces')
  }
  return key
}

/**
 * What makes two requests "the same request": the resource and what is asked
 * of it, not the URL's spelling (issue 19). That is the operation the route
 * declares (its operationId: one method on one route pattern of one service),
 * the API version as negotiated, the path parameters (decimal ids by value),
 * the query and the body, members in a canonical order. So `/students`,
 * `/students/` and `/v1/students` are one resource, as are `/students/7` and
 * `/students/007`; another version, id, query or body is another request.
 */
export function requestFingerprint (request: FastifyRequest): string {
  const operation = request.routeOptions.schema?.operationId ?? `${request.method} ${request.routeOptions.url ?? ''}`
  const text = JSON.stringify([operation, request.apiVersion, canonical(pathParameters(request.params)), canonical(request.query), canonical(request.body)])
  return createHash('sha256').update(text).digest('base64url')
}

/** Path parameters with decimal numbers written without leading zeros: `007` and `7` name one record. */
function pathParameters (params: unknown): unknown {
  if (typeof params !== 'object' || params === null) return params
  const out = Object.create(null) as Record<string, unknown>
  for (const [name, value] of Object.entries(params)) out[name] = typeof value === 'string' && /^[0-9]+$/.test(value) ? value.replace(/^0+(?=[0-9])/, '') : value
  return out
}

function replay (reply: FastifyReply, kept: KeptWrite, fingerprint: string): FastifyReply {
  if (kept.fingerprint !== fingerprint) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request (operation, resource, version, query or body); use a new key for a new request')
  }
  reply.header(REPLAYED_HEADER, 'true')
  return sendKept(reply, kept.answer)
}

/** The answer as it will be sent and kept: the body serialised as the route would. */
function serialise (reply: FastifyReply, answer: WriteAnswer): KeptAnswer {
  reply.code(answer.status) // reply.serialize picks the response schema of the current status
  const text = answer.text ?? (answer.body === undefined ? '' : reply.serialize(answer.body))
  return { status: answer.status, headers: answer.headers ?? {}, body: typeof text === 'string' ? text : Buffer.from(text as ArrayBuffer).toString('utf8') }
}

/**
 * An answer made ready to send: status and headers set on the reply, the
 * payload handed back for the route to return, which Fastify sends as it
 * sends any handler's value (returning the reply instead, a thenable, costs
 * a turn through its `then`).
 */
function answerPayload (reply: FastifyReply, answer: WriteAnswer): unknown {
  reply.code(answer.status)
  const headers = answer.headers
  if (headers !== undefined) for (const name in headers) reply.header(name, headers[name])
  if (answer.text === undefined) {
    // No body (204): sent here, as before (a handler's `undefined` is no payload to Fastify, which would then send only if nothing was).
    return answer.body === undefined ? reply.send() : answer.body
  }
  if (reply.getHeader('content-type') === undefined) reply.type('application/json; charset=utf-8')
  return answer.text
}

/** An answer sent: answerPayload's payload, unless it sent the answer itself (no body). */
function sendAnswer (reply: FastifyReply, answer: WriteAnswer): FastifyReply {
  const payload = answerPayload(reply, answer)
  return payload === reply ? reply : reply.send(payload)
}

/** Sends a kept answer byte for byte; its content type is the one negotiated for this request. */
function sendKept (reply: FastifyReply, answer: KeptAnswer): FastifyReply {
  reply.code(answer.status)
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value)
  if (answer.body === '') return reply.send()
  if (reply.getHeader('content-type') === undefined) reply.type('application/json; charset=utf-8')
  return reply.send(answer.body)
}

/** JSON text of a parsed body with object members sorted, bigints as digits. */
function canonical (value: unknown): unknown {
  if (typeof value === 'bigint') return { $bigint: value.toString() }
  if (Array.isArray(value)) return value.map(canonical)
  if (value !== null && typeof value === 'object') {
    const out = Object.create(null) as Record<string, unknown>
    for (const name of Object.keys(value).sort()) out[name] = canonical((value as Record<string, unknown>)[name])
    return out
  }
  return value
}
