import type { QueryableStore } from '../domain/index.js'
import { csvHeader, csvRow } from './csv.js'
import type { CollectionModel } from './model.js'
import type { ListRequest } from './parse.js'
import { storeQuery } from './page.js'

/** The forms a list is written in as a stream: NDJSON (one JSON object a line, issue 13) or CSV (issue 22). */
export type RecordFormat = 'ndjson' | 'csv'

/** How a collection's records are written in each stream format: its NDJSON line, and its CSV columns (`id` first, declaration order). */
export interface StreamWriters<R> {
  line: (record: R) => string
  columns: readonly string[]
}

/**
 * A collection model's CSV columns: its fields, `id` first, in declaration
 * order; an object field is its nested scalars' columns by dotted path
 * (`address.city`), a list or free JSON one column of JSON (issue 29).
 */
export function csvColumns (model: CollectionModel): readonly string[] {
  const names = Object.keys(model.fields)
  return names.filter((name) => !name.includes('.')).flatMap((name) => {
    const nested = names.filter((n) => n.startsWith(`${name}.`))
    return nested.length > 0 ? nested : [name]
  })
}

/** A list's records as text, one chunk per store batch; `close` stops the store's walk and frees its cursor. */
export interface RecordStream {
  /** Records matching the filters, when the request asked (`count=true`). */
  total?: number
  chunks: AsyncGenerator<string>
  close: () => void
}

/**
 * Every matching record (from the request's cursor, at most its `limit`) as
 * NDJSON or CSV (a header row, then one row a record: ./csv.ts), batch by
 * batch as the store yields them: the next batch is read only when the
 * previous chunk was taken. The first batch is read before this returns, so
 * a failing store fails the call rather than the stream.
 */
export async function recordStream<R, F extends string> (
  store: QueryableStore<R, F>,
  list: ListRequest<F>,
  format: RecordFormat,
  writers: StreamWriters<R>
): Promise<RecordStream> {
  const total = list.count ? await store.count(list.filter) : undefined
  const batches = store.batches(storeQuery(list, list.limit))[Symbol.asyncIterator]()
  const first = await batches.next()
  const { columns } = writers
  const write = format === 'csv' ? (record: R) => csvRow(record, columns) : writers.line
  async function * chunks (): AsyncGenerator<string> {
    try {
      // `bom=true`: a UTF-8 byte order mark first, so spreadsheet programs read the CSV as UTF-8.
      let text = format === 'csv' ? `${list.bom === true ? '\ufeff' : ''}${csvHeader(columns)}` : ''
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
  return { total, chunks: chunks(), close: () => { void batches.return?.() } }
}
