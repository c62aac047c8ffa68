import type { FastifyReply } from 'fastify'

/** A reply's own headers as Fastify keeps them until it writes the head: lowercase names to values. */
export type HeaderObject = Record<string, unknown>

/**
 * Direct access to a reply's header object, for the headers every request gets (the request id, the
 * protective headers, Vary). `reply.header(name, value)` costs each a call, a lowercasing, and a load
 * and a store through a megamorphic keyed access (one site sees every name); a store of a constant
 * name into the object is a plain property store, on an object whose shape every request repeats.
 * Fastify keeps the object under a symbol it does not export, found by its description on the first
 * reply (per server); when it is not there (another Fastify), `of` gives undefined and callers use
 * `reply.header`. What is written is what `reply.header` would write: the same lowercase names and
 * values, in the same order, so the head node:http writes is byte for byte the same.
 */
export class ReplyHeaderObjects {
  #key: symbol | null | undefined

  /** The reply's header object, or undefined when this Fastify keeps none where this looks. */
  of (reply: FastifyReply): HeaderObject | undefined {
    let key = this.#key
    if (key === undefined) key = this.#key = findKey(reply)
    if (key === null) return undefined
    return (reply as unknown as Record<symbol, HeaderObject>)[key]
  }
}

function findKey (reply: FastifyReply): symbol | null {
  const key = Object.getOwnPropertySymbols(reply).find((symbol) => symbol.description === 'fastify.reply.headers')
  const value: unknown = key === undefined ? undefined : (reply as unknown as Record<symbol, unknown>)[key]
  return key !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value) ? key : null
}
