import type { Readable } from 'node:stream'
import { parseExactJson } from '../http/rest/index.js'
import type { ServedCollection } from './collection.js'
import { DEFAULT_MAX_LINE_BYTES, describeSize, readLines, TOO_LONG } from './lines.js'
import { csvColumns, csvObject, isBlank, readCsv, type CsvColumn } from './csv.js'

/** How an import's input is written: one JSON object a line, or CSV with a header row (./csv.ts). */
export type DataFormat = 'ndjson' | 'csv'

/** A line of an import that is not a valid record: its number (from 1) and why. */
export class BadLineError extends Error {
  override name = 'BadLineError'
  constructor (readonly line: number, readonly reason: string) {
    super(`line ${line}: ${reason}`)
  }
}

/** A line longer than the import's limit (`maxLineBytes`): a bad line whose text was never held. */
export class LineTooLongError extends BadLineError {
  override name = 'LineTooLongError'
  constructor (line: number, readonly limit: number) {
    super(line, lineTooLong(limit))
  }
}

export interface ReadOptions {
  /** Skip invalid lines (reported through onSkipped) instead of failing on the first. */
  skipInvalid: boolean
  onSkipped?: (line: number, reason: string) => void
  /** After each batch: records read so far and bytes of the input consumed. */
  onProgress?: (records: number, bytes: number) => void
  /** A valid line whose id an earlier line of the input had: stores keep the last one. */
  onRepeatedId?: (line: number) => void
  /** Longest line read; a longer one is a bad line (default DEFAULT_MAX_LINE_BYTES). */
  maxLineBytes?: number
  batchSize?: number
  /** NDJSON unless told. For CSV, `maxLineBytes` limits a record (in UTF-16 units) and line numbers are record numbers, the header's 1. */
  format?: DataFormat
}

/** One line (NDJSON) or record (CSV) of an input, numbered from 1: nothing (blank), the value it holds, or why it holds none. */
type Entry =
  | { number: number, blank: true }
  | { number: number, value: unknown }
  | { number: number, reason: string, tooLong?: true }

const BATCH_SIZE = 1000

/**
 * The records of an NDJSON (or CSV: `format`) input in batches, each line parsed and checked as
 * the API checks a body. Blank lines are passed over; so is a leading UTF-8
 * byte order mark. A bad line (too long included) throws BadLineError, which
 * makes the store roll the whole import back, unless invalid lines are
 * skipped. Every valid record is given, a repeated id too (the store keeps
 * the last); `onRepeatedId` says which lines repeated one. Seen ids are held
 * for that: about 21 MB per million student ids, 45 MB per million address ids.
 */
export async function * readRecords<R> (input: Readable, collection: ServedCollection<R>, options: ReadOptions): AsyncGenerator<R[]> {
  const size = options.batchSize ?? BATCH_SIZE
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  const seen = new Set<number | bigint | string>()
  let count = 0
  let batch: R[] = []
  const report = (): void => options.onProgress?.(count, (input as { bytesRead?: number }).bytesRead ?? 0)
  const entries = options.format === 'csv' ? csvEntries(input, collection, maxLineBytes) : ndjsonEntries(input, maxLineBytes)
  for await (const entry of entries) {
    if ('blank' in entry) continue
    const { number } = entry
    const checked = 'reason' in entry ? entry : collection.check(entry.value)
    if ('reason' in checked) {
      if (!options.skipInvalid) throw 'tooLong' in entry ? new LineTooLongError(number, maxLineBytes) : new BadLineError(number, checked.reason)
      options.onSkipped?.(number, checked.reason)
      continue
    }
    const id = collection.id(checked.record)
    if (seen.has(id)) options.onRepeatedId?.(number)
    else seen.add(id)
    batch.push(checked.record)
    if (batch.length === size) {
      count += batch.length
      yield batch
      batch = []
      report()
    }
  }
  if (batch.length > 0) {
    count += batch.length
    yield batch
  }
  report()
}

async function * ndjsonEntries (input: Readable, maxLineBytes: number): AsyncGenerator<Entry> {
  let number = 0
  for await (const text of readLines(input, maxLineBytes)) {
    number++
    if (text === TOO_LONG) yield { number, reason: lineTooLong(maxLineBytes), tooLong: true }
    else if (text.trim() === '') yield { number, blank: true }
    else yield { number, ...parseLine(text) }
  }
}

/**
 * A CSV input's data records as the objects JSON lines would be. The first
 * record that is not blank is the header: a column the collection does not
 * have, or one named twice, stops the import at once (with --skip-invalid
 * too: no record of such a file could be read right).
 */
async function * csvEntries (input: Readable, collection: ServedCollection, maxChars: number): AsyncGenerator<Entry> {
  let columns: CsvColumn[] | undefined
  for await (const record of readCsv(input, maxChars)) {
    const { number } = record
    if ('tooLong' in record) {
      if (columns === undefined) throw new LineTooLongError(number, maxChars)
      yield { number, reason: lineTooLong(maxChars), tooLong: true }
    } else if ('problem' in record) {
      if (columns === undefined) throw new BadLineError(number, `the header is no proper CSV: ${record.problem}`)
      yield { number, reason: `the record is no proper CSV: ${record.problem}` }
    } else if (isBlank(record.cells)) {
      yield { number, blank: true }
    } else if (columns === undefined) {
      try {
        columns = csvColumns(collection, record.cells)
      } catch (err) {
        throw new BadLineError(number, (err as Error).message)
      }
    } else {
      yield { number, ...csvObject(columns, record.cells) }
    }
  }
}

function lineTooLong (limit: number): string {
  return `the line is longer than the limit of ${describeSize(limit)}`
}

/** A line's JSON object, or why it is none. */
function parseLine (text: string): { value: unknown } | { reason: string } {
  let value: unknown
  try {
    value = parseExactJson(text)
  } catch (err) {
    return { reason: (err as Error).message.replace(/^The request body/, 'the line') }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { reason: 'the line is not a JSON object' }
  return { value }
}
