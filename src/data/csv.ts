import { StringDecoder } from 'node:string_decoder'
import type { Readable } from 'node:stream'
import type { ServedCollection } from './collection.js'
import { InputReadError } from './lines.js'
import { separatorHint, typeRecord, type TypedColumn } from './cells.js'

/**
 * Reading CSV (RFC 4180, UTF-8; issue 22), as `rqs export --format csv` and
 * `Accept: text/csv` write it (src/records/csv.ts): fields separated
 * by commas, records by CRLF (a lone LF or CR is taken too), a field in
 * double quotes may hold commas, quotes (doubled) and line breaks. A quoted
 * empty field is an empty text; an unquoted empty one is an absent field.
 * A leading UTF-8 byte order mark is dropped.
 */

export { CsvParser, type CsvCell, type CsvRecord } from './csv-parser.js'
import { CsvParser, type CsvCell, type CsvRecord } from './csv-parser.js'

/** The records of a CSV input in order; a failing input throws InputReadError. Destroys nothing: the caller owns the input. */
export async function * readCsv (input: Readable | AsyncIterable<Buffer | string>, maxChars: number): AsyncGenerator<CsvRecord> {
  const chunks = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]()
  const decoder = new StringDecoder('utf8')
  const parser = new CsvParser(maxChars)
  let first = true
  try {
    for (;;) {
      let next: IteratorResult<Buffer | string>
      try {
        next = await chunks.next()
      } catch (err) {
        throw new InputReadError(err)
      }
      if (next.done === true) break
      let text = typeof next.value === 'string' ? next.value : decoder.write(next.value)
      if (first && text.length > 0) {
        if (text.startsWith('\ufeff')) text = text.slice(1)
        first = false
      }
      yield * parser.push(text)
    }
    yield * parser.push(decoder.end())
    yield * parser.end()
  } finally {
    await chunks.return?.()
  }
}

/** A blank line: one unquoted empty field. Passed over, as NDJSON's blank lines are. */
export function isBlank (cells: readonly CsvCell[]): boolean {
  return cells.length === 1 && cells[0]?.text === '' && cells[0].quoted === false
}

/** A column of a CSV file: the field it holds and how its cells are typed (./cells.ts). */
export type CsvColumn = TypedColumn

/** The collection's columns and how each cell is read, from its header row; throws a reason for a header it cannot take. */
export function csvColumns (collection: ServedCollection, header: readonly CsvCell[]): CsvColumn[] {
  const seen = new Set<string>()
  return header.map(({ text: name }) => {
    // A nested scalar is a column by its dotted path (`address.city`), as exports write it.
    if (!collection.fields.includes(name) && !(name.includes('.') && Object.hasOwn(collection.model.fields, name))) {
      throw new Error(`unknown column "${name}": the columns of ${collection.name} are ${collection.fields.join(', ')}${separatorHint(name, collection.fields)}`)
    }
    if (seen.has(name)) throw new Error(`the column "${name}" is named twice`)
    seen.add(name)
    const param = Object.hasOwn(collection.model.fields, name) ? collection.model.fields[name] : undefined
    return { name, kind: param?.kind ?? 'string' }
  })
}

/** A data record's cells as the object a JSON line would be (the shared typing: ./cells.ts). */
export const csvObject = typeRecord
