import type { Readable } from 'node:stream'
import { parseExactJson } from '../http/rest/index.js'
import type { RecordCollection } from './collection.js'
import { DEFAULT_MAX_LINE_BYTES, describeSize, readLines, TOO_LONG } from './lines.js'

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
}

const BATCH_SIZE = 1000

/**
 * The records of an NDJSON input in batches, each line parsed and checked as
 * the API checks a body. Blank lines are passed over; so is a leading UTF-8
 * byte order mark. A bad line (too long included) throws BadLineError, which
 * makes the store roll the whole import back, unless invalid lines are
 * skipped. Every valid record is given, a repeated id too (the store keeps
 * the last); `onRepeatedId` says which lines repeated one. Seen ids are held
 * for that: about 21 MB per million student ids, 45 MB per million address ids.
 */
export async function * readRecords<R> (input: Readable, collection: RecordCollection<R>, options: ReadOptions): AsyncGenerator<R[]> {
  const size = options.batchSize ?? BATCH_SIZE
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  const seen = new Set<number | bigint | string>()
  let number = 0
  let count = 0
  let batch: R[] = []
  const report = (): void => options.onProgress?.(count, (input as { bytesRead?: number }).bytesRead ?? 0)
  for await (const text of readLines(input, maxLineBytes)) {
    number++
    if (text !== TOO_LONG && text.trim() === '') continue
    const checked = text === TOO_LONG ? { reason: lineTooLong(maxLineBytes) } : checkLine(collection, text)
    if ('reason' in checked) {
      if (!options.skipInvalid) throw text === TOO_LONG ? new LineTooLongError(number, maxLineBytes) : new BadLineError(number, checked.reason)
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

function lineTooLong (limit: number): string {
  return `the line is longer than the limit of ${describeSize(limit)}`
}

function checkLine<R> (collection: RecordCollection<R>, text: string): { record: R } | { reason: string } {
  let value: unknown
  try {
    value = parseExactJson(text)
  } catch (err) {
    return { reason: (err as Error).message.replace(/^The request body/, 'the line') }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { reason: 'the line is not a JSON object' }
  return collection.check(value)
}
