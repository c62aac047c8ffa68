import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { parseExactJson } from '../http/rest/index.js'
import type { RecordCollection } from './collection.js'

/** A line of an import that is not a valid record: its number (from 1) and why. */
export class BadLineError extends Error {
  override name = 'BadLineError'
  constructor (readonly line: number, readonly reason: string) {
    super(`line ${line}: ${reason}`)
  }
}

export interface ReadOptions {
  /** Skip invalid lines (reported through onSkipped) instead of failing on the first. */
  skipInvalid: boolean
  onSkipped?: (line: number, reason: string) => void
  /** After each batch: records read so far and bytes of the input consumed. */
  onProgress?: (records: number, bytes: number) => void
  batchSize?: number
}

const BATCH_SIZE = 1000

/**
 * The records of an NDJSON input in batches, each line parsed and checked as
 * the API checks a body. Blank lines are passed over. A bad line throws
 * BadLineError (which makes the store roll the whole import back) unless
 * invalid lines are skipped.
 */
export async function * readRecords<R> (input: Readable, collection: RecordCollection<R>, options: ReadOptions): AsyncGenerator<R[]> {
  const size = options.batchSize ?? BATCH_SIZE
  const lines = createInterface({ input, crlfDelay: Infinity })
  let number = 0
  let count = 0
  let batch: R[] = []
  const report = (): void => options.onProgress?.(count, (input as { bytesRead?: number }).bytesRead ?? 0)
  try {
    for await (const text of lines) {
      number++
      if (text.trim() === '') continue
      const checked = checkLine(collection, text)
      if ('reason' in checked) {
        if (!options.skipInvalid) throw new BadLineError(number, checked.reason)
        options.onSkipped?.(number, checked.reason)
        continue
      }
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
  } finally {
    lines.close()
  }
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
