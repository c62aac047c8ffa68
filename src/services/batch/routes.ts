import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { callerKey, DanglingReferenceError, DuplicateKeyError, IdempotencyKeyUsedError, RecordReferencedError, type KeptAnswer, type KeptWrite, type KeptWrites, type KeyedWrite, type RecordStores } from '../../domain/index.js'
import { AppError, buildProblem, classifyError, negotiateLanguage, PROBLEM_CONTENT_TYPE, problems } from '../../http/errors/index.js'
import { exactJsonParser, routeOtherMethods } from '../../http/rest/index.js'
import { idempotencyKey, REPLAYED_HEADER, requestFingerprint, scopedKey } from '../../http/rest/idempotency.js'
import { answer } from '../../http/openapi/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import { callerOf, principalOf, REALM } from '../../http/security/index.js'
import { appendVary } from '../../lib/vary.js'
import { BatchAnswer, batchBody } from './schema.js'
import { resolveUrl, type Target } from './targets.js'
import { VERBS, type Answer, type BatchMethod, type Step } from './verbs.js'

export const BATCH_PATH = '/batch'
/** The most requests one batch holds: its transaction holds locks (PostgreSQL) or the write lock (SQLite) until it ends. */
export const BATCH_MAX_REQUESTS = 100

export interface BatchRoutesOptions {
  stores: RecordStores
  targets: readonly Target[]
  maxRequests: number
  /** Whether tokens are checked (then each write needs the write scope). */
  auth: boolean
}

interface BatchRequest {
  method: BatchMethod
  url: string
  headers?: Record<string, string>
  body?: unknown
}

/** The headers a request of a batch may send: its preconditions (content-type is taken and ignored: the body is JSON). */
const HEADERS = new Set(['if-match', 'if-none-match', 'content-type'])

/** A request of the batch failed with a client error: nothing was applied. */
/** What a request of a batch can be refused with: the routes' errors, and the stores' refusals of a write (a unique key, a reference). */
type Refusal = AppError | DuplicateKeyError | DanglingReferenceError | RecordReferencedError

function isRefusal (err: unknown): err is Refusal {
  return err instanceof AppError || err instanceof DuplicateKeyError || err instanceof DanglingReferenceError || err instanceof RecordReferencedError
}

class StepFailed extends Error {
  constructor (readonly step: { index: number, method: string, url: string }, readonly error: Refusal) {
    super(error.message)
  }
}

/**
 * POST /batch: record requests of any collections run in order in one
 * transaction of the store (RecordStores.atomically), none of them through
 * HTTP again. Each is resolved to its collection and checked as its REST
 * route checks it before the transaction starts; in it, each runs on the
 * unit's view of its collection. 200 lists every answer; the first that
 * fails rolls everything back: 422 BATCH_FAILED names its index and holds its
 * own problem. Idempotency-Key keeps the whole answer with the transaction.
 */
export async function batchRoutes (app: FastifyInstance, opts: BatchRoutesOptions): Promise<void> {
  declareRoutes(app, { service: 'batch' })
  app.setErrorHandler(problems.handleError)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, exactJsonParser)
  // Every collection keeps Idempotency-Key answers in one place: any of them finds the batch's.
  const kept: KeptWrites = opts.stores.collections.values().next().value ?? {}

  app.post<{ Body: { requests: BatchRequest[] } }>(BATCH_PATH, {
    // Sending a batch needs the read scope; each write in it needs the write scope too.
    config: { rqs: { access: 'read', dataOnly: true } },
    schema: {
      operationId: 'runBatch',
      tags: ['batch'],
      summary: 'Run record requests of any collections in one transaction: all are applied, or none',
      description: `Up to ${opts.maxRequests} requests (GET, POST, PUT, PATCH, DELETE on students v2, addresses and declared collections) run in order in one transaction. ` +
        'A later request sees what earlier ones wrote. When one fails, nothing is applied and the answer is 422 BATCH_FAILED with its `index` and its own problem in `failed`. ' +
        'Idempotency-Key makes the whole batch run once; changes reach the change feed only when the batch commits.',
      body: batchBody(opts.maxRequests),
      'x-rqs': { store: true, errors: ['BATCH_REQUEST_INVALID', 'BATCH_FAILED', 'IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_REUSED'] },
      response: { 200: answer(BatchAnswer, 'Every request was applied: their answers, in order.') }
    }
  }, async (request, reply) => {
    // Before the requests are checked (checking takes undeclared members out of their bodies).
    const sentKey = idempotencyKey(request)
    const fingerprint = sentKey === undefined ? '' : requestFingerprint(request)
    let steps: Step[]
    try {
      steps = request.body.requests.map((sent, index) => stepOf(sent, index, opts.targets))
    } catch (err) {
      if (err instanceof StepFailed) return sendFailure(request, reply, err)
      throw err
    }
    authorize(request, steps, opts.auth)
    // Under record rules each request is the caller's (docs/rules.md), and so is a kept answer.
    const ruled = steps.some((step) => step.target.ids.store.declaration.access !== undefined)
    const caller = ruled ? callerOf(request) : undefined
    if (caller !== undefined) steps = steps.map((step) => ({ ...step, caller }))
    const key = scopedKey(sentKey, caller === undefined ? undefined : callerKey(caller))
    reply.type('application/json; charset=utf-8')
    if (key !== undefined) {
      const earlier = await kept.keptWrite?.(key)
      if (earlier !== undefined) return replay(reply, earlier, fingerprint)
    }
    let text = ''
    const keyed: KeyedWrite<Answer[]> | undefined = key === undefined
      ? undefined
      : { key, fingerprint, answer: (answers) => ({ status: 200, headers: {}, body: text = render(answers, steps) }) }
    let answers: Answer[]
    try {
      answers = await opts.stores.atomically(async (unit) => {
        const done: Answer[] = []
        for (const step of steps) {
          const records = unit.collections.get(step.target.name)
          if (records === undefined) throw new RangeError(`the unit of work has no collection ${step.target.name}`)
          try {
            done.push(await VERBS[step.method].run(step, records))
          } catch (err) {
            throw isRefusal(err) ? new StepFailed(step, err) : err
          }
        }
        return done
      }, keyed)
    } catch (err) {
      if (err instanceof StepFailed) return sendFailure(request, reply, err)
      if (err instanceof IdempotencyKeyUsedError) return replay(reply, err.kept, fingerprint)
      throw err
    }
    return reply.send(text === '' ? render(answers, steps) : text)
  })

  routeOtherMethods(app, BATCH_PATH, ['POST'], problems.methodNotAllowed, 'by-method')
}

/**
 * A request of the batch resolved and checked: 400 BATCH_REQUEST_INVALID for
 * what cannot be in a batch at all; 422 BATCH_FAILED (via StepFailed) for
 * what its REST route would refuse (a malformed id, an invalid body).
 */
function stepOf (sent: BatchRequest, index: number, targets: readonly Target[]): Step {
  const invalid = (field: string, detail: string): AppError => new AppError('BATCH_REQUEST_INVALID', `requests/${index}: ${detail}`, { errors: [{ code: 'BATCH_REQUEST_INVALID', field: `requests/${index}/${field}`, detail }] })
  const resolved = resolveUrl(sent.url, targets)
  if (typeof resolved === 'string') throw invalid('url', resolved)
  const verb = VERBS[sent.method]
  if (verb.one !== (resolved.segment !== undefined)) {
    throw invalid('method', verb.one ? `${sent.method} needs one record's URL (${resolved.base}/{id})` : `${sent.method} needs the collection's URL (${resolved.base})`)
  }
  if (!verb.body && sent.body !== undefined) throw invalid('body', `${sent.method} takes no body`)
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(sent.headers ?? {})) {
    const lower = name.toLowerCase()
    if (!HEADERS.has(lower)) throw invalid(`headers/${name}`, `only If-Match and If-None-Match may be sent, not ${name.slice(0, 40)}`)
    headers[lower] = value
  }
  const where = { index, method: sent.method, url: sent.url }
  try {
    const id = resolved.segment === undefined ? undefined : resolved.target.ids.idOf(resolved.segment)
    const input = verb.prepare?.(resolved.target, sent.body, id)
    return { index, method: sent.method, url: sent.url, target: resolved.target, base: resolved.base, id, headers, input }
  } catch (err) {
    if (err instanceof AppError) throw new StepFailed(where, err)
    throw err
  }
}

/** Each write needs the write scope, as its own route would (the route itself let the batch in with read). */
function authorize (request: FastifyRequest, steps: readonly Step[], auth: boolean): void {
  if (!auth) return
  const write = steps.find((s) => VERBS[s.method].access === 'write')
  if (write === undefined) return
  const principal = principalOf(request)
  const what = `request ${write.index} (${write.method} ${write.url.slice(0, 60)})`
  // (With --auth-public-read an anonymous client may send a batch: only reads pass.)
  if (principal === undefined) throw new AppError('UNAUTHENTICATED', `This batch writes (${what}): send Authorization: Bearer <token> with the write scope`, { headers: { 'www-authenticate': REALM } })
  if (!principal.scopes.has('write')) {
    throw new AppError('FORBIDDEN', `This batch writes (${what}): it needs a token with the write scope`, { headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="write"` } })
  }
}

/** The batch's answer: one `{status, headers, body}` per request; records as their collections' lines write them (64-bit ids exact). */
function render (answers: readonly Answer[], steps: readonly Step[]): string {
  const parts = answers.map((a, i) => {
    const body = a.record === undefined ? '' : `,"body":${steps[i]?.target.collection.line(a.record).trimEnd() ?? 'null'}`
    return `{"status":${a.status},"headers":${JSON.stringify(a.headers)}${body}}`
  })
  return `{"responses":[${parts.join(',')}]}`
}

/** 422 BATCH_FAILED: which request failed, and its own problem as it would have been answered alone. */
function sendFailure (request: FastifyRequest, reply: FastifyReply, failure: StepFailed): FastifyReply {
  const { step, error } = failure
  const language = negotiateLanguage(request.headers['accept-language'])
  const own = classifyError(error as AppError & Parameters<typeof classifyError>[0], request)
  const failed = { ...buildProblem(request, own.code, own, language), instance: step.url }
  const detail = `Request ${step.index} (${step.method} ${step.url.slice(0, 60)}) failed with ${failed.status} ${own.code}: ${own.detail}. Nothing of the batch was applied`
  const problem = buildProblem(request, 'BATCH_FAILED', { detail, errors: [{ code: 'BATCH_FAILED', field: `requests/${step.index}`, detail }] }, language)
  appendVary(reply, 'Accept-Language')
  return reply
    .code(problem.status)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .header('content-language', language)
    .send(JSON.stringify({ ...problem, index: step.index, failed }))
}

function replay (reply: FastifyReply, kept: KeptWrite, fingerprint: string): FastifyReply {
  if (kept.fingerprint !== fingerprint) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request (operation, resource, version, query or body); use a new key for a new request')
  }
  const answer: KeptAnswer = kept.answer
  return reply.code(answer.status).header(REPLAYED_HEADER, 'true').send(answer.body)
}
