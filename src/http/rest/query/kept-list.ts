import type { FastifyReply } from 'fastify'
import type { QueryableStore, StoreRevision } from '../../../domain/index.js'
import { streamsWhole } from '../../../records/index.js'
import { frameContentType, sendJsonList, type ListFrame, type ListTap } from './respond.js'

/**
 * "Serialise once" (issue 12): the JSON of a whole list is built once and
 * sent again, byte for byte, until the store changes. Only a store whose
 * every write this process sees can say when that is: the memory store,
 * through a revision every write advances (QueryableStore.revision).
 * Database stores have none (another process may write), so they are read
 * and serialised on every request as before.
 */
export interface Revisioned {
  readonly revision: StoreRevision
}

export function isRevisioned (store: { readonly revision?: StoreRevision }): store is Revisioned {
  return store.revision !== undefined
}

/**
 * Whole lists whose JSON is at most this many characters (≈ 4 MB of ASCII
 * text) are kept; a longer one is streamed on every request, so a huge
 * collection never holds a second copy of itself in memory.
 */
export const KEEP_UP_TO_CHARS = 4 * 1024 * 1024

interface KeptList {
  /** The store's revision the bytes were built at. */
  revision: number
  body: Buffer
}

/**
 * The whole lists one service of one server keeps: per store (its revision
 * object, which decorators of the store share) and frame (the representation:
 * the v1 envelope or the v2 array, each with its own content type), at most
 * one answer each. Each server makes its own (state lives on the instance).
 */
export class KeptLists {
  readonly #kept = new WeakMap<StoreRevision, Map<ListFrame, KeptList>>()

  /**
   * Sends every record of a revisioned store in `frame`: the kept bytes while
   * the store has not changed since they were built, else a fresh answer,
   * kept when no write happened while it was read. The bytes equal those of
   * the uncached paths (`store.list()` and one serialisation below STREAM_FROM
   * records, a stream from it on); a kept answer goes out in one piece, with a
   * Content-Length.
   */
  async send<R, F extends string> (
    reply: FastifyReply,
    store: QueryableStore<R, F> & Revisioned & { list: () => Promise<readonly R[]> },
    frame: ListFrame
  ): Promise<FastifyReply> {
    let byFrame = this.#kept.get(store.revision)
    if (byFrame === undefined) this.#kept.set(store.revision, byFrame = new Map())
    return await sendKept(reply, store, frame, byFrame)
  }
}

async function sendKept<R, F extends string> (
  reply: FastifyReply,
  store: QueryableStore<R, F> & Revisioned & { list: () => Promise<readonly R[]> },
  frame: ListFrame,
  byFrame: Map<ListFrame, KeptList>
): Promise<FastifyReply> {
  const revision = store.revision
  const at = revision.current
  frameContentType(reply, frame)
  const hit = byFrame.get(frame)
  if (hit?.revision === at) return reply.send(hit.body)
  byFrame.delete(frame) // stale: free it now rather than at the next build
  const keep = (body: Buffer): void => {
    // A write while the list was read may or may not be in it: such an answer is sent, never kept.
    if (revision.current === at) byFrame.set(frame, { revision: at, body })
  }

  if (await streamsWhole(store)) return await sendJsonList(reply, store, frame, new Collector(keep))
  const records = await store.list()
  let text = `${frame.prefix}[`
  for (let i = 0; i < records.length; i++) text += (i === 0 ? '' : ',') + JSON.stringify(records[i])
  const body = Buffer.from(`${text}]${frame.suffix}`)
  keep(body)
  return reply.send(body)
}

/** Gathers a streamed list's chunks while they stay within KEEP_UP_TO_CHARS; past that it drops them and keeps nothing. */
class Collector implements ListTap {
  #chunks: string[] | undefined = []
  #chars = 0

  constructor (private readonly keep: (body: Buffer) => void) {}

  add (chunk: string): void {
    if (this.#chunks === undefined) return
    this.#chars += chunk.length
    if (this.#chars > KEEP_UP_TO_CHARS) this.#chunks = undefined
    else this.#chunks.push(chunk)
  }

  end (): void {
    if (this.#chunks !== undefined) this.keep(Buffer.from(this.#chunks.join('')))
    this.#chunks = undefined
  }
}
