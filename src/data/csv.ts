import { StringDecoder } from 'node:string_decoder'
import type { Readable } from 'node:stream'
import { KINDS } from '../domain/index.js'
import type { FieldParam } from '../http/rest/query/model.js'
import type { RecordCollection } from './collection.js'
import { InputReadError } from './lines.js'

/**
 * Reading CSV (RFC 4180, UTF-8; issue 22), as `rqs export --format csv` and
 * `Accept: text/csv` write it (src/http/rest/query/csv.ts): fields separated
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

/** The collection's columns and how each cell is read, from its header row; throws a reason for a header it cannot take. */
/** A column of a CSV file: the field it holds, how its cells are read, and whether the field is text. */
export interface CsvColumn {
  name: string
  read: CellReader
  text: boolean
}

export function csvColumns (collection: RecordCollection, header: readonly CsvCell[]): CsvColumn[] {
  const seen = new Set<string>()
  return header.map(({ text: name }) => {
    if (!collection.fields.includes(name)) {
      throw new Error(`unknown column "${name}": the columns of ${collection.name} are ${collection.fields.join(', ')}`)
    }
    if (seen.has(name)) throw new Error(`the column "${name}" is named twice`)
    seen.add(name)
    const param = Object.hasOwn(collection.model.fields, name) ? collection.model.fields[name] : undefined
    return { name, read: cellReader(name, param), text: param === undefined || param.kind === 'string' }
  })
}

/** A cell's value as the field's type has it, or the reason it is none. */
export type CellReader = (text: string) => { value: unknown } | { reason: string }

/** A cell as its field's kind reads it (a column no model types is text). */
function cellReader (name: string, param: FieldParam | undefined): CellReader {
  if (param === undefined) return (text) => ({ value: text })
  const read = KINDS[param.kind].csv
  return (text) => {
    const cell = read(text)
    return 'rule' in cell ? { reason: `${name} ${cell.rule}` } : cell
  }
}

/**
 * A data record's cells as the object a JSON line would be: the header's
 * names, each value typed by its field. An unquoted empty cell is an absent
 * field; a quoted one is the empty text of a text field and absent otherwise.
 */
export function csvObject (columns: readonly CsvColumn[], cells: readonly CsvCell[]): { value: Record<string, unknown> } | { reason: string } {
  if (cells.length !== columns.length) return { reason: `the record has ${cells.length} field${cells.length === 1 ? '' : 's'}, the header ${columns.length}` }
  const value: Record<string, unknown> = {}
  for (let i = 0; i < columns.length; i++) {
    const { name, read, text } = columns[i] as CsvColumn
    const cell = cells[i] as CsvCell
    if (cell.text === '' && !(cell.quoted && text)) continue
    const read1 = read(cell.text)
    if ('reason' in read1) return read1
    value[name] = read1.value
  }
  return { value }
}
