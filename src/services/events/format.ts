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

/** The messages of the changes of some collections (those the feed carries), each serialised with its collection's schema. */
export class ChangeFormat {
  // One serialiser for records and one for deletes rather than one with `record: anyOf [record, null]`:
  // fast-json-stringify picks an anyOf branch by validating, and a bigint id validates as no JSON type.
  // Each compiled with the first change of its collection sent, not at start: compiling two per collection
  // (code generated and evaluated) was paid by every start, also for collections no client follows.
  readonly #records: ReadonlyMap<string, () => Serialise>
  readonly #deletes: ReadonlyMap<string, () => Serialise>

  constructor (collections: ReadonlyArray<{ name: string, schema: TSchema }>) {
    this.#records = new Map(collections.map((c) => [c.name, onFirstUse(() => dataWith(c.schema, idOf(c.schema)))]))
    this.#deletes = new Map(collections.map((c) => [c.name, onFirstUse(() => dataWith(Type.Null(), idOf(c.schema)))]))
  }

  /** The message of a change; undefined for a collection the feed does not carry. */
  message (change: Change): string | undefined {
    const data = this.data(change)
    if (data === undefined) return undefined
    return `id: ${change.seq}\nevent: ${change.service}.${change.kind}\ndata: ${data}\n\n`
  }

  /** The JSON of a change's `data:` line (webhooks send it too); undefined for a collection the feed does not carry. */
  data (change: Change): string | undefined {
    const record = this.#records.get(change.service)
    if (record === undefined) return undefined
    const serialise = change.record === null ? (this.#deletes.get(change.service) as () => Serialise)() : record()
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
