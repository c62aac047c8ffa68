import fastJson from 'fast-json-stringify'
import { Type, type TSchema } from '@sinclair/typebox'
import type { Change } from '../../domain/index.js'
import { onFirstUse } from '../../lib/first-use.js'

/**
 * The text of the change feed's messages (Server-Sent Events). A change is
 * `id: <seq>`, `event: <collection>.<kind>` and one `data:` line of JSON
 * `{"id", "record", "at"}`, the record in its service's newest representation:
 * serialised from the schema the collection declares (the routes' own), so an
 * address id beyond 2^53 keeps every digit, as the address routes write it.
 */

type Serialise = (data: unknown) => string

const dataWith = (record: TSchema, id: TSchema = Type.Integer()): Serialise => fastJson(Type.Object({ id, record, at: Type.String() }))

/** The id's schema as the collection's record declares it: an integer, or a string (UUID ids of a declared collection). */
function idOf (record: TSchema): TSchema {
  const declared: unknown = (record as { properties?: Record<string, unknown> }).properties?.id
  return typeof declared === 'object' && declared !== null && (declared as { type?: unknown }).type === 'string' ? Type.String() : Type.Integer()
}

/** A collection as the feed reads it: its name and the record schema its changes serialise with. */
interface FeedCollection { name: string, schema: TSchema }

/** The serialisers of one collection's changes: records, and deletes (record null). */
interface Serialisers { record: () => Serialise, deleted: () => Serialise }

/**
 * The messages of the changes of the collections the feed carries, each
 * serialised with its collection's schema as it is when the change is sent:
 * a field added while the server runs is in the messages of the changes
 * sent after it, and a collection created while it runs is carried.
 */
export class ChangeFormat {
  // One serialiser for records and one for deletes rather than one with `record: anyOf [record, null]`:
  // fast-json-stringify picks an anyOf branch by validating, and a bigint id validates as no JSON type.
  // Each compiled with the first change of its collection sent, not at start: compiling two per collection
  // (code generated and evaluated) was paid by every start, also for collections no client follows.
  // Kept by the collection's object, which stays the same as long as its declaration does.
  readonly #serialisers = new WeakMap<FeedCollection, Serialisers>()
  readonly #collection: (name: string) => FeedCollection | undefined

  /** `collection` gives the collection of a change as it is now (undefined: one the feed does not carry). */
  constructor (collection: (name: string) => FeedCollection | undefined) {
    this.#collection = collection
  }

  /** The messages of a fixed list of collections. */
  static of (collections: readonly FeedCollection[]): ChangeFormat {
    const byName = new Map(collections.map((c) => [c.name, c]))
    return new ChangeFormat((name) => byName.get(name))
  }

  /** The message of a change; undefined for a collection the feed does not carry. */
  message (change: Change): string | undefined {
    const data = this.data(change)
    if (data === undefined) return undefined
    return `id: ${change.seq}\nevent: ${change.service}.${change.kind}\ndata: ${data}\n\n`
  }

  /** The JSON of a change's `data:` line (webhooks send it too); undefined for a collection the feed does not carry. */
  data (change: Change): string | undefined {
    const collection = this.#collection(change.service)
    if (collection === undefined) return undefined
    let serialisers = this.#serialisers.get(collection)
    if (serialisers === undefined) {
      const { schema } = collection
      serialisers = { record: onFirstUse(() => dataWith(schema, idOf(schema))), deleted: onFirstUse(() => dataWith(Type.Null(), idOf(schema))) }
      this.#serialisers.set(collection, serialisers)
    }
    const serialise = change.record === null ? serialisers.deleted() : serialisers.record()
    return serialise({ id: change.id, record: change.record, at: change.at.toISOString() })
  }
}

/** How long a client waits before it reconnects (sent first on every stream). */
export function retryMessage (ms: number): string {
  return `retry: ${ms}\n\n`
}

/** The stream is live from `seq` on: what came before was sent or is in the list the client loads now. */
export function readyMessage (seq: number): string {
  return `id: ${seq}\nevent: ready\ndata: {}\n\n`
}

/** Changes after the client's Last-Event-ID are no longer kept: it must load its lists again. */
export function resetMessage (seq: number): string {
  return `id: ${seq}\nevent: reset\ndata: {}\n\n`
}

/** A comment: ignored by clients, keeps proxies from closing an idle stream. */
export const HEARTBEAT = ': heartbeat\n\n'

/**
 * Why the server ends a stream: `max-age` (it lasted `--events-max-stream-age`) and `shutdown` —
 * reconnect as usual, with Last-Event-ID; `revoked` (the token left the tokens file or lost a scope)
 * and `expired` (the JWT expired) — reconnect only with a new token.
 */
export type EndReason = 'max-age' | 'shutdown' | 'revoked' | 'expired'

/** The last event of a stream the server ends. It has no `id`, so the client's Last-Event-ID stays. */
export function endMessage (reason: EndReason): string {
  return `event: end\ndata: {"reason":"${reason}"}\n\n`
}
