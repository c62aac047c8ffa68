import type { FastifyInstance } from 'fastify'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { AppError } from '../../http/errors/index.js'
import { callerOf } from '../../http/security/index.js'
import type { Change, CollectionAccess, RecordId } from '../../domain/index.js'
import { ChangeAccess } from '../../records/index.js'
import type { ChangeHub } from './hub.js'
import type { ByName, CollectionsNow } from '../collections/served-now.js'

export const HISTORY_PATH = '/events/history'
/** How many changes a history answers without `limit=`, and the most it answers. */
export const HISTORY_DEFAULT_LIMIT = 20
export const HISTORY_MAX_LIMIT = 100

export interface HistoryOptions {
  hub: ChangeHub
  /** The collections the feed carries now, each with the record schema its events serialise. */
  collections: CollectionsNow
  access: ByName<CollectionAccess>
}

const PARAMS = ['collection', 'id', 'limit']

function querySchema (names: readonly string[]): TSchema {
  return Type.Object({
    collection: Type.String({ maxLength: 100, description: `The record's collection: ${names.join(', ')}`, examples: [names[0] ?? 'students'] }),
    id: Type.String({ maxLength: 100, description: 'The record\'s id: an integer in plain decimal, or a UUID for a collection with UUID ids', examples: ['0'] }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: HISTORY_MAX_LIMIT, default: HISTORY_DEFAULT_LIMIT, description: `At most this many changes, the newest (default ${HISTORY_DEFAULT_LIMIT}, at most ${HISTORY_MAX_LIMIT})` }))
  })
}
interface Query { collection: string, id: string, limit?: number }

const Entry = Type.Object({
  seq: Type.Integer({ description: 'The change\'s sequence number: the `id:` of its event on the feed' }),
  event: Type.String({ description: 'The `event:` of the feed: `<collection>.created|replaced|deleted`', examples: ['students.replaced'] }),
  data: Type.Object({
    id: Type.Union([Type.Integer(), Type.String()]),
    record: Type.Union([Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }), Type.Null()], { description: 'The record as the change left it (the v2 representation, as the caller may see it); null after a delete' }),
    at: Type.String({ format: 'date-time' })
  }, { description: 'The `data:` of the feed\'s event, as `/events` sends it' })
})
const History = Type.Object({ items: Type.Array(Entry, { description: 'Newest first' }) }, {
  examples: [{
    items: [
      { seq: 42, event: 'students.replaced', data: { id: 0, record: { id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 37 }, at: '2026-11-26T05:56:33.898Z' } },
      { seq: 41, event: 'students.created', data: { id: 0, record: { id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }, at: '2026-11-26T05:56:30.120Z' } }
    ]
  }]
})
export type HistoryAnswer = Static<typeof History>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const INTEGER_ID = /^(0|[1-9]\d{0,18})$/
const MAX_INT64 = 2n ** 63n - 1n

/**
 * GET /events/history: one record's recent changes from the change log, in
 * the feed's event JSON, newest first, at most `limit` and only what the log
 * still holds (its retention). Registered in the feed's scope, so it is
 * declared as the feed is (service `events`, the `read` scope) and its
 * caller sees what a stream of that collection would carry them.
 */
export function historyRoute (app: FastifyInstance, opts: HistoryOptions): void {
  // The description names the collections served at start; a request may name any served now.
  const names = opts.collections.names()
  app.get<{ Querystring: Query }>(HISTORY_PATH, {
    config: { rqs: { access: 'read', dataOnly: true } },
    schema: {
      operationId: 'recordHistory',
      tags: ['events'],
      summary: 'A record\'s recent changes from the change feed, newest first',
      description: `The changes of one record the change log still holds (memory: the last 10 000 changes of all records; SQLite and PostgreSQL: \`--changes-retention\`, 24 h by default), newest first, each as the feed sends it (\`seq\` is the event's \`id:\`, \`event\` its \`event:\`, \`data\` its \`data:\`). With rules, only the changes a stream of the collection would carry its caller. At most \`limit\` (${HISTORY_DEFAULT_LIMIT}; up to ${HISTORY_MAX_LIMIT}).`,
      querystring: querySchema(names),
      'x-rqs': { errors: ['FEED_SERVICE_UNKNOWN', 'INVALID_ID', 'INVALID_QUERY'], store: true },
      response: { 200: History }
    }
  }, async (request, reply) => {
    refuseUnknown(request.query)
    const collection = request.query.collection
    const served = opts.collections.get(collection)
    if (served === undefined) {
      const now = opts.collections.names().join(', ')
      throw new AppError('FEED_SERVICE_UNKNOWN', `collection: "${collection.slice(0, 40)}" is not a collection of this feed; use ${now}`, {
        errors: [{ code: 'FEED_SERVICE_UNKNOWN', detail: `querystring.collection names "${collection.slice(0, 40)}"; expected ${now}`, field: 'collection' }]
      })
    }
    const id = parseId(request.query.id, collection, hasStringIds(served.schema))
    const limit = request.query.limit ?? HISTORY_DEFAULT_LIMIT
    const rules = opts.access.get(collection)
    // With rules, one change more: the one before the answer's oldest says whether a stream followed the record then.
    const newestFirst = await opts.hub.changes.ofRecord(collection, id, rules === undefined ? limit : limit + 1)
    const seen = rules === undefined ? newestFirst : inView(newestFirst, new ChangeAccess(rules, callerOf(request)), limit)
    // The feed's own serialiser writes each entry's data (exact 64-bit ids), so the body is put together as text.
    const items = seen.flatMap((change) => {
      const data = opts.hub.data(change)
      return data === undefined ? [] : [`{"seq":${change.seq},"event":"${change.service}.${change.kind}","data":${data}}`]
    })
    return await reply.type('application/json; charset=utf-8').send(`{"items":[${items.join(',')}]}`)
  })
}

/**
 * The newest `limit` changes as a stream following the collection would have
 * carried them: asked of the caller's view oldest first (a change that takes
 * the record out of view reaches it as a delete, later changes out of view
 * not at all), answered newest first. Whether a stream follows a record
 * depends on the last change it was asked about alone, so a change read
 * beyond `limit` sets that up exactly, as for a stream open since the oldest
 * change the log holds.
 */
function inView (newestFirst: readonly Change[], access: ChangeAccess, limit: number): Change[] {
  const seen: Change[] = []
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    const change = access.seen(newestFirst[i] as Change)
    if (change !== undefined && i < limit) seen.push(change)
  }
  return seen.reverse()
}

function refuseUnknown (query: object): void {
  const unknown = Object.keys(query).filter((name) => !PARAMS.includes(name))
  if (unknown.length === 0) return
  throw new AppError('INVALID_QUERY', `${unknown.map((name) => `unknown query parameter "${name.slice(0, 60)}"`).join('; ')}. Accepted: ${PARAMS.join(', ')}`, {
    errors: unknown.map((name) => ({ code: 'INVALID_QUERY', detail: `unknown query parameter "${name.slice(0, 60)}"`, field: name.slice(0, 60) }))
  })
}

/** The id as the change log keys it: a UUID in lower case, or an integer (a bigint beyond 2^53). */
function parseId (text: string, collection: string, uuid: boolean): RecordId {
  if (uuid) {
    const id = text.toLowerCase()
    if (UUID.test(id)) return id
  } else if (INTEGER_ID.test(text) && BigInt(text) <= MAX_INT64) {
    const id = BigInt(text)
    return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : id
  }
  const expected = uuid ? 'a UUID' : 'an integer from 0 to 9223372036854775807 in plain decimal'
  throw new AppError('INVALID_ID', `id: "${text.slice(0, 40)}" is not an id of ${collection}: use ${expected}`, {
    errors: [{ code: 'INVALID_ID', detail: `querystring.id "${text.slice(0, 40)}" is not ${expected}`, field: 'id' }]
  })
}

/** Whether a record schema declares string ids (UUIDs), as the feed's serialiser reads it. */
function hasStringIds (schema: TSchema): boolean {
  const declared: unknown = (schema as { properties?: Record<string, unknown> }).properties?.id
  return typeof declared === 'object' && declared !== null && (declared as { type?: unknown }).type === 'string'
}
