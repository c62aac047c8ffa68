import type { Readable } from 'node:stream'

/**
 * The lines of an NDJSON input, each held only up to a limit (issue 19):
 * Node's readline keeps a line however long it grows, so one 200 MB line
 * took 744 MB and one over 512 MiB crashed the process. Here a line is given
 * as TOO_LONG as soon as it passes the limit, and what was held of it is
 * dropped: a reader that stops then has read little more than the limit; one
 * that goes on (skipping the line) gets the next line, the rest of this one
 * passed over unkept. Lines end at `\n`; a `\r` before it is dropped, as is
 * a UTF-8 byte order mark at the start of the input.
 */

/** Longest line an import reads by default: valid records are a few hundred bytes, so this only stops runaway input. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024

/** Stands for a line longer than the limit, whose text was not kept. */
export const TOO_LONG: unique symbol = Symbol('line too long')

/** The input itself failed (a read error), as opposed to what was read. */
export class InputReadError extends Error {
  override name = 'InputReadError'
  constructor (readonly reason: unknown) {
    super((reason as Error).message ?? String(reason), { cause: reason })
  }
}

const NEWLINE = 0x0a
const BOM = '\ufeff'

/** Lines in order (numbered from 1 by the caller); each string or TOO_LONG. Destroys nothing: the caller owns the input. */
export async function * readLines (input: Readable | AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<string | typeof TOO_LONG> {
  const chunks = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]()
  let parts: Buffer[] = []
  let held = 0
  let skipping = false // inside a line already past the limit
  let first = true
  const drop = (): void => {
    parts = []
    held = 0
    first = false
  }
  const text = (tail: Buffer): string => {
    const bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail])
    parts = []
    held = 0
    let line = bytes.toString('utf8')
    if (line.endsWith('\r')) line = line.slice(0, -1)
    if (first && line.startsWith(BOM)) line = line.slice(1)
    first = false
    return line
  }
  try {
    for (;;) {
      let next: IteratorResult<Buffer | string>
      try {
        next = await chunks.next()
      } catch (err) {
        throw new InputReadError(err)
      }
      if (next.done === true) break
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value
      let start = 0
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        if (skipping) {
          skipping = false // the end of a line already given as TOO_LONG
        } else if (held + end - start > maxBytes) {
          drop()
          yield TOO_LONG
        } else {
          yield text(chunk.subarray(start, end))
        }
        start = end + 1
      }
      if (skipping || start === chunk.length) continue
      const rest = chunk.subarray(start)
      if (held + rest.length > maxBytes) {
        drop()
        skipping = true // the rest of this line is passed over
        yield TOO_LONG
      } else {
        parts.push(rest)
        held += rest.length
      }
    }
    if (!skipping && held > 0) yield text(Buffer.alloc(0))
  } finally {
    await chunks.return?.()
  }
}

/** 1048576 → "1 MiB", 1536 → "1.5 KiB", 100 → "100 bytes". */
export function describeSize (bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`
  }
  return `${bytes} bytes`
}
