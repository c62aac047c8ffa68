import type { FastifyInstance, onSendHookHandler } from 'fastify'
import { Type, type Static, type TObject, type TOptional, type TString } from '@sinclair/typebox'
import { MediaTypeChooser } from '../../lib/negotiate.js'
import { AppError, problems } from '../../http/errors/index.js'
import { routeOtherMethods } from '../../http/rest/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import { RETRY_AFTER, streamOwner, type StreamRefusal, type StreamSlot } from '../../http/streams/index.js'
import { MAX_FILTER_LENGTH, type Caller, type CollectionAccess } from '../../domain/index.js'
import { ChangeAccess, ChangeFilter, readFilterParam, type CollectionModel } from '../../records/index.js'
import { callerOf } from '../../http/security/index.js'
import { HISTORY_PATH, historyRoute } from './history.js'
import type { ChangeHub } from './hub.js'
import type { StartPoint } from './subscriber.js'
import type { ByName, CollectionsNow } from '../collections/served-now.js'

export const EVENTS_PATH = '/events'
export const EVENT_STREAM = 'text/event-stream'

export interface EventsRoutesOptions {
  hub: ChangeHub
  /** The record collections this server serves now: what the feed carries and `?services=` may name. */
  collections: CollectionsNow
  /** Each service's query model: what its `?filter=` may name. */
  models: ByName<CollectionModel>
  /** The rules of the collections that declare them (docs/rules.md): each stream carries only what its caller may view. */
  access: ByName<CollectionAccess>
  /** The stream budget (the server's stream registry, shared with GraphQL subscriptions), for the refusals' wording (Infinity: none). */
  maxStreams: number
  maxStreamsPerClient: number
}

/** The parameters /events takes; any other is refused by name (issue 31, item 7), not ignored. */
const PARAMS = ['services', 'filter']

/**
 * `?services=` and `?filter=`, described with the collections this server's
 * feed carries. Other members stay (no additionalProperties), so that the
 * handler can refuse them by name.
 */
function querySchema (services: readonly string[]): TObject<{ services: TOptional<TString>, filter: TOptional<TString> }> {
  return Type.Object({
    services: Type.Optional(Type.String({ maxLength: 100, description: `${services.join(', ')}, or several separated by commas (default: every record service of this server)` })),
    filter: Type.Optional(Type.String({
      maxLength: MAX_FILTER_LENGTH,
      description: 'Only changes of records that match this filter expression before or after the change (the language of the lists\' `filter=`, docs/collections.md), e.g. `year > 2000`. Needs `services=` naming one collection.'
    }))
  })
}
type Query = Static<ReturnType<typeof querySchema>>

const Headers = Type.Object({
  'last-event-id': Type.Optional(Type.String({ description: 'The id of the last event received: the stream starts with every change after it' }))
})

const eventStream = new MediaTypeChooser([EVENT_STREAM])
/** A Last-Event-ID this server can have sent. */
const SEQUENCE = /^(0|[1-9]\d{0,14})$/
/**
 * GET /events: the change feed as Server-Sent Events. A normal GET route, so
 * every onRequest check (authentication, its `read` scope) applies; errors
 * before the stream starts are problem details. A stream needs a slot
 * within the per-client and overall limits (429, 503 otherwise).
 */
export async function eventsRoutes (app: FastifyInstance, opts: EventsRoutesOptions): Promise<void> {
  const { hub } = opts
  // The description names the collections served at start; a stream may name any served when it opens.
  const atStart = opts.collections.names()
  declareRoutes(app, { service: 'events' })
  app.setErrorHandler(problems.handleError)

  app.get<{ Querystring: Query, Headers: Static<typeof Headers> }>(EVENTS_PATH, {
    config: { rqs: { access: 'read' } }, // the records themselves, as their GETs are
    schema: {
      operationId: 'streamChanges',
      tags: ['events'],
      summary: `Change feed: every create, replace and delete of ${atStart.join(', ')} (Server-Sent Events)`,
      description: `Events ${atStart.map((s) => `\`${s}.created|replaced|deleted\``).join(', ')}, each \`id: <sequence>\` with \`data: {"id", "record" (v2 representation, null after a delete), "at"}\`; ` +
        '`event: ready` when live, `event: reset` when the Last-Event-ID is older than what is kept, a heartbeat comment every 15 s.\n\n' +
        // Swagger UI's "Try it out" would wait for the end of a stream that does not end (src/http/openapi/swagger-ui.ts turns it off).
        `The stream does not end, so "Try it out" is off here. Watch it with curl (then create a record in another window):\n\n\`\`\`\ncurl -N -H 'Accept: text/event-stream' 'http://localhost:8080${EVENTS_PATH}?services=${atStart[0] ?? 'students'}'\n\`\`\``,
      querystring: querySchema(atStart),
      headers: Headers,
      'x-rqs': { errors: ['FEED_SERVICE_UNKNOWN', 'INVALID_QUERY', 'NOT_ACCEPTABLE', 'FEED_TOO_MANY_STREAMS', 'FEED_FULL'], store: true, headers: { 429: ['Retry-After'] } },
      response: { 200: { description: 'A text/event-stream, ended by the server after `--events-max-stream-age` (1 h), when its token is withdrawn or expires, or at shutdown, each time with a last `event: end`', content: { [EVENT_STREAM]: { schema: { type: 'string' } } } } }
    },
    onSend: closeConnection
  }, async (request, reply) => {
    const services = chosenServices(request.query.services, opts.collections.names())
    const filter = changeFilter(request.query, services, opts.models)
    if (eventStream.select(request.headers.accept) === undefined) {
      throw new AppError('NOT_ACCEPTABLE', `The change feed is available as ${EVENT_STREAM} only`)
    }
    const stream = request.method !== 'HEAD'
    const owner = streamOwner(request)
    let slot: StreamSlot | undefined
    if (stream) {
      const reserved = hub.reserve(owner)
      if (typeof reserved === 'string') throw refused(reserved, opts)
      slot = reserved
    }
    let start: StartPoint
    let held = false
    try {
      // The store's changes flow to the hub from before the start point is read until the stream ends.
      if (slot !== undefined) { await hub.hold(); held = true }
      // Read before the stream starts, so that a store outage is a 503 problem, not a broken stream.
      start = await startPoint(request.headers['last-event-id'], hub)
    } catch (err) {
      if (held) hub.letGo()
      slot?.release()
      throw err
    }
    void reply
      .header('cache-control', 'no-cache')
      // Reverse proxies (nginx) must pass each event on at once.
      .header('x-accel-buffering', 'no')
      // A stream ends only when the server stops: its connection is not kept for another request,
      // which would hold the shutdown until the keep-alive timeout.
      .header('connection', 'close')
      .type(`${EVENT_STREAM}; charset=utf-8`)
    if (slot === undefined) return await reply.send()
    // From here the response is written directly: an idle client then costs its connection and
    // little more (about half of what a reply kept open through Fastify would). onResponse hooks
    // (the access log) still run when it ends; the headers set so far are sent.
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = typeof value === 'number' ? String(value) : value
    reply.hijack()
    reply.raw.writeHead(200, headers)
    hub.subscribe(reply.raw, services, start, slot, filter, streamAccess(services, opts.access, callerOf(request)))
  })

  routeOtherMethods(app, EVENTS_PATH, ['GET'], problems.methodNotAllowed, 'by-method')

  // One record's recent changes: a plain JSON read, declared here so that it is the feed's (service, scope, rules).
  historyRoute(app, { hub, collections: opts.collections, access: opts.access })
  routeOtherMethods(app, HISTORY_PATH, ['GET'], problems.methodNotAllowed, 'by-method')
}

/**
 * Every answer of the route that is not a stream (a refusal — 401, 403, 429,
 * 503 — any other error, HEAD) closes its connection: a client asking again
 * and again on kept-alive connections would hold them as surely as open
 * streams do (issue 19). Streams say so themselves.
 */
const closeConnection: onSendHookHandler = (_request, reply, payload, done) => {
  void reply.header('connection', 'close')
  done(null, payload)
}

function refused (refusal: StreamRefusal, limits: Pick<EventsRoutesOptions, 'maxStreams' | 'maxStreamsPerClient'>): AppError {
  const headers = { 'retry-after': RETRY_AFTER[refusal] }
  return refusal === 'client-full'
    ? new AppError('FEED_TOO_MANY_STREAMS', `This client already holds ${limits.maxStreamsPerClient} change-feed streams and GraphQL subscriptions together, the most one client may; close one or wait for one to end`, { headers })
    : new AppError('FEED_FULL', `The server already serves ${limits.maxStreams} change-feed streams and GraphQL subscriptions together, the most it serves at once; retry after ${RETRY_AFTER[refusal]} s`, { headers })
}

/** `?services=students,addresses` → the set; absent → every service of this server. */
function chosenServices (param: string | undefined, available: readonly string[]): ReadonlySet<string> {
  if (param === undefined) return new Set(available)
  const chosen = new Set<string>()
  for (const name of param.split(',').map((n) => n.trim())) {
    const service = available.find((s) => s === name)
    if (service === undefined) {
      const known = available.join(', ')
      throw new AppError('FEED_SERVICE_UNKNOWN', `services: "${name.slice(0, 40)}" is not a service of this feed; use ${known}, or several separated by commas`, {
        errors: [{ code: 'FEED_SERVICE_UNKNOWN', detail: `querystring.services names "${name.slice(0, 40)}"; expected ${known}`, field: 'services' }]
      })
    }
    chosen.add(service)
  }
  return chosen
}

/**
 * The stream's filter, or none; refuses (400 INVALID_QUERY) a parameter
 * /events does not take, a filter without exactly one service, and a filter
 * its collection's fields refuse (`filter: … at 7`).
 */
function changeFilter (query: Readonly<Record<string, unknown>>, services: ReadonlySet<string>, models: ByName<CollectionModel>): ChangeFilter | undefined {
  const unknown = Object.keys(query).filter((name) => !PARAMS.includes(name))
  if (unknown.length > 0) {
    const hint = unknown.some((name) => name.includes('[')) ? ' (a filter is written filter=, e.g. filter=year > 2000)' : ''
    throw new AppError('INVALID_QUERY', `${unknown.map((name) => `unknown query parameter "${name.slice(0, 60)}"`).join('; ')}${hint}. Accepted: ${PARAMS.join(', ')}`, {
      errors: unknown.map((name) => ({ code: 'INVALID_QUERY', detail: `unknown query parameter "${name.slice(0, 60)}"`, field: name.slice(0, 60) }))
    })
  }
  const text = query.filter
  if (typeof text !== 'string') return undefined
  const [service] = services
  const model = service === undefined ? undefined : models.get(service)
  if (services.size !== 1 || service === undefined || model === undefined) {
    throw new AppError('INVALID_QUERY', 'filter applies to the changes of one collection: name it with services=, e.g. services=books&filter=year > 2000', {
      errors: [{ code: 'INVALID_QUERY', detail: 'filter needs services= naming one collection', field: 'filter' }]
    })
  }
  const read = readFilterParam(model, text)
  if ('refused' in read) throw new AppError('INVALID_QUERY', read.refused, { errors: [{ code: 'INVALID_QUERY', detail: read.refused, field: 'filter' }] })
  return new ChangeFilter(service, read.expr)
}

/** What the stream's caller may see of each of its collections with rules; undefined when none has any. */
function streamAccess (services: ReadonlySet<string>, access: ByName<CollectionAccess>, caller: Caller): ReadonlyMap<string, ChangeAccess> | undefined {
  const own = new Map<string, ChangeAccess>()
  for (const service of services) {
    const rules = access.get(service)
    if (rules !== undefined) own.set(service, new ChangeAccess(rules, caller))
  }
  return own.size === 0 ? undefined : own
}

/** Where the stream starts for a client that sent `lastEventId` (or none). */
async function startPoint (lastEventId: string | undefined, hub: ChangeHub): Promise<StartPoint> {
  const { oldest, latest } = await hub.changes.window()
  if (lastEventId === undefined) return { kind: 'live', latest }
  if (!SEQUENCE.test(lastEventId)) return { kind: 'reset' }
  const after = Number(lastEventId)
  // Newer than anything here: the client saw another database, or a memory store before a restart.
  if (after > latest || after < oldest - 1) return { kind: 'reset' }
  return { kind: 'resume', after }
}
