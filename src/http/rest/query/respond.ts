import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { QueryableStore, RecordQuery } from '../../../domain/index.js'
import { CSV_TYPE, EVERYTHING, recordStream, type ListSource, type ListRequest, type Page, type StreamWriters } from '../../../records/index.js'
import { JSON_TYPE, NDJSON_TYPE, type StreamFormat } from '../versioning.js'

/** X-Total-Count and `Link: <next>; rel="next"` (added to any Link already set, e.g. deprecation links). */
export function pageHeaders (reply: FastifyReply, page: Pick<Page<unknown>, 'next' | 'total'>): void {
  if (page.total !== undefined) reply.header('x-total-count', String(page.total))
  if (page.next !== undefined) appendLink(reply, `<${page.next}>; rel="next"`)
}

function appendLink (reply: FastifyReply, link: string): void {
  const current = reply.getHeader('link')
  reply.header('link', current === undefined ? link : `${String(current)}, ${link}`)
}

/**
 * Streams every matching record (from `cursor`, at most `limit` when given)
 * as NDJSON or CSV (written by src/records/stream.ts), batch by batch as the
 * store yields them: the next batch is read only when the socket took the
 * previous one (back-pressure), and a
 * client that goes away destroys the stream, which stops the store's walk
 * and frees its cursor. The first batch is read before the answer starts, so
 * a failing store is still a proper error answer; a failure later can only
 * cut the stream short.
 */
export async function sendStream<R, F extends string> (
  reply: FastifyReply,
  collection: ListSource<R, F>,
  list: ListRequest<F>,
  format: StreamFormat,
  writers: StreamWriters<R>
): Promise<FastifyReply> {
  const { total, chunks, close } = await recordStream(collection.store, list, format, writers)
  const stream = Readable.from(chunks, { objectMode: false })
  // Also when the stream is destroyed before its first read (the generator's finally never runs then).
  stream.once('close', close)
  if (total !== undefined) reply.header('x-total-count', String(total))
  if (list.download === true) reply.header('content-disposition', `attachment; filename="${fileName(collection.path)}.${format}"`)
  return reply.type(format === 'csv' ? CSV_TYPE : NDJSON_TYPE).send(stream)
}

/** The file name of a collection's export: the last segment of its path ("students"), kept to safe characters. */
function fileName (path: string): string {
  const name = path.split('/').filter((part) => part !== '').pop() ?? 'records'
  return name.replace(/[^A-Za-z0-9._-]/g, '_')
}

/** A whole list's answer as one serialisation of its representation gives it: the JSON around the array, and its content type. */
export interface ListFrame {
  readonly prefix: string
  readonly suffix: string
  /**
   * Whether `; charset=utf-8` is added to a JSON content type without one, as
   * Fastify does for a body it serialises with the route's schema (v1), and
   * not with a serializer of the route's own (v2).
   */
  readonly addsCharset: boolean
}

export const ENVELOPE_FRAME: ListFrame = { prefix: '{"isSuccessful":true,"body":', suffix: '}', addsCharset: true }
export const ARRAY_FRAME: ListFrame = { prefix: '', suffix: '', addsCharset: false }

/** Sets the content type the one-piece answer in `frame` has: streams and kept bytes pass Fastify's serialisation by. */
export function frameContentType (reply: FastifyReply, frame: ListFrame): void {
  const type = reply.getHeader('content-type')
  if (type === undefined) reply.type(JSON_TYPE)
  else if (frame.addsCharset && typeof type === 'string' && type.includes('json') && !/;\s*charset=/i.test(type)) reply.type(`${type}; charset=utf-8`)
}

/** Sees every chunk of a streamed list as it is sent; `end` only when the whole answer was produced. */
export interface ListTap {
  add: (chunk: string) => void
  end: () => void
}

/**
 * Every record as a JSON array in `frame` (the v1 envelope around it, or
 * nothing), written batch by batch so the event loop serves other clients
 * meanwhile and the socket's back-pressure paces the store. The bytes are
 * those of serialising the whole list at once (records hold their fields in
 * schema order); a client that goes away stops the store's work.
 */
export async function sendJsonList<R, F extends string> (reply: FastifyReply, store: QueryableStore<R, F>, frame: ListFrame, tap?: ListTap): Promise<FastifyReply> {
  const batches = store.batches(EVERYTHING as RecordQuery<F>)[Symbol.asyncIterator]()
  const first = await batches.next()
  async function * chunks (): AsyncGenerator<string> {
    let separator = ''
    const opening = `${frame.prefix}[`
    tap?.add(opening)
    yield opening
    try {
      for (let batch = first; batch.done !== true; batch = await batches.next()) {
        let text = ''
        for (const record of batch.value) { text += separator + JSON.stringify(record); separator = ',' }
        tap?.add(text)
        yield text
      }
    } finally {
      await batches.return?.()
    }
    const closing = `]${frame.suffix}`
    tap?.add(closing)
    tap?.end()
    yield closing
  }
  const stream = Readable.from(chunks(), { objectMode: false })
  stream.once('close', () => { void batches.return?.() })
  frameContentType(reply, frame)
  return reply.send(stream)
}
