import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import { positionOf, type QueryableStore, type RecordQuery } from '../../../domain/index.js'
import { JSON_TYPE, NDJSON_TYPE, type StreamFormat } from '../versioning.js'
import { encodeCursor } from '../../../records/cursor.js'
import { CSV_TYPE, csvHeader, csvRow } from '../../../records/csv.js'
import type { CollectionModel } from '../../../records/model.js'
import type { ListRequest } from '../../../records/parse.js'

/** A collection as its list route answers it: the store, and the path its next links start with. */
export interface Collection<R, F extends string> {
  store: QueryableStore<R, F>
  path: string
}

export interface Page<R> {
  items: R[]
  /** Relative link to the next page; absent on the last page and without paging. */
  next?: string
  /** Records matching the filters, when the client asked (`count=true`). */
  total?: number
}

function storeQuery<F extends string> (list: ListRequest<F>, limit: number | undefined): RecordQuery<F> {
  return { ...list.filter, sort: list.sort, after: list.after, limit }
}

/**
 * Reads one page. One record more than asked tells whether a next page
 * exists without a second query; the next link carries every parameter the
 * client sent (filters, sort, q, count) and the cursor after the page's last record.
 */
export async function readPage<R, F extends string> (collection: Collection<R, F>, list: ListRequest<F>): Promise<Page<R>> {
  const limit = list.pageSize
  const [rows, total] = await Promise.all([
    collection.store.query(storeQuery(list, limit === undefined ? undefined : limit + 1)),
    list.count ? collection.store.count(list.filter) : undefined
  ])
  if (limit === undefined || rows.length <= limit) return { items: rows, total }
  const items = rows.slice(0, limit)
  const cursor = encodeCursor(list.sort, positionOf(items[limit - 1], list.sort))
  return { items, next: nextLink(collection.path, limit, cursor, list.carried), total }
}

export function nextLink (path: string, limit: number, cursor: string, carried: ReadonlyArray<[string, string]>): string {
  let link = `${path}?limit=${limit}&cursor=${cursor}`
  for (const [name, value] of carried) link += `&${encodeURIComponent(name)}=${encodeURIComponent(value)}`
  return link
}

/** X-Total-Count and `Link: <next>; rel="next"` (added to any Link already set, e.g. deprecation links). */
export function pageHeaders (reply: FastifyReply, page: Pick<Page<unknown>, 'next' | 'total'>): void {
  if (page.total !== undefined) reply.header('x-total-count', String(page.total))
  if (page.next !== undefined) appendLink(reply, `<${page.next}>; rel="next"`)
}

function appendLink (reply: FastifyReply, link: string): void {
  const current = reply.getHeader('link')
  reply.header('link', current === undefined ? link : `${String(current)}, ${link}`)
}

/** How a collection's records are written in each stream format: its NDJSON line, and its CSV columns (`id` first, declaration order). */
export interface StreamWriters<R> {
  line: (record: R) => string
  columns: readonly string[]
}

/** A collection model's CSV columns: its fields, `id` first, in declaration order. */
export function csvColumns (model: CollectionModel): readonly string[] {
  return Object.keys(model.fields)
}

/**
 * Streams every matching record (from `cursor`, at most `limit` when given)
 * as NDJSON (one JSON object a line) or CSV (a header row, then one row a
 * record: ./csv.ts), batch by batch as the store yields them: the next batch
 * is read only when the socket took the previous one (back-pressure), and a
 * client that goes away destroys the stream, which stops the store's walk
 * and frees its cursor. The first batch is read before the answer starts, so
 * a failing store is still a proper error answer; a failure later can only
 * cut the stream short.
 */
export async function sendStream<R, F extends string> (
  reply: FastifyReply,
  collection: Collection<R, F>,
  list: ListRequest<F>,
  format: StreamFormat,
  writers: StreamWriters<R>
): Promise<FastifyReply> {
  const total = list.count ? await collection.store.count(list.filter) : undefined
  const batches = collection.store.batches(storeQuery(list, list.limit))[Symbol.asyncIterator]()
  const first = await batches.next()
  const { columns } = writers
  const write = format === 'csv' ? (record: R) => csvRow(record, columns) : writers.line
  async function * chunks (): AsyncGenerator<string> {
    try {
      let text = format === 'csv' ? csvHeader(columns) : ''
      for (let batch = first; batch.done !== true; batch = await batches.next()) {
        for (const record of batch.value) text += write(record)
        yield text
        text = ''
      }
      if (text !== '') yield text // the header of an empty list
    } finally {
      await batches.return?.()
    }
  }
  const stream = Readable.from(chunks(), { objectMode: false })
  // Also when the stream is destroyed before its first read (the generator's finally never runs then).
  stream.once('close', () => { void batches.return?.() })
  if (total !== undefined) reply.header('x-total-count', String(total))
  return reply.type(format === 'csv' ? CSV_TYPE : NDJSON_TYPE).send(stream)
}

/** Whole lists at least this long are streamed: one string for them would hold the event loop and the memory. */
export const STREAM_FROM = 1000

/** Every record, in id order. */
export const EVERYTHING: RecordQuery<never> = { where: [], sort: [] }

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

/** Whether a whole list is long enough to be streamed. */
export async function streamsWhole<R, F extends string> (store: QueryableStore<R, F>): Promise<boolean> {
  return await store.count(EVERYTHING) >= STREAM_FROM
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
