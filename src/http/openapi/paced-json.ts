import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import type { OpenApiDocument, Pace } from './document.js'

/**
 * The document's text as it is kept and sent: UTF-8 bytes in parts of about
 * PART_BYTES (a path of a declared collection's list alone is more), never
 * joined. At the declaration limits the text is tens of megabytes: joining
 * them (Buffer.concat) held the event loop for 60–80 ms of CPU, and so did
 * compressing the one buffer; parts are written, and compressed, one by one.
 */
export class KeptText {
  readonly length: number
  constructor (readonly parts: readonly Buffer[]) {
    this.length = parts.reduce((sum, part) => sum + part.length, 0)
  }

  /** The bytes as a stream for one answer (each answer its own). */
  stream (): Readable {
    return Readable.from(this.parts, { objectMode: false })
  }

  /** The whole text as one string (small documents and tests). */
  toString (): string {
    return Buffer.concat(this.parts).toString()
  }
}

/** Parts smaller than this are written together: a stream of hundreds of tiny writes costs more than it saves. */
const PART_BYTES = 64 * 1024

/**
 * JSON.stringify(document) as UTF-8 bytes, its paths written one by one
 * with `pace` between them: at the declaration limits the text is tens of
 * megabytes, seconds of one call that would hold every other request. Each
 * path is encoded as it is written, and the bytes are what is kept and
 * sent: one string of them all would be joined, searched and encoded again
 * in one go (and on every request that sends it).
 */
export async function pacedJson (document: OpenApiDocument, pace: Pace): Promise<KeptText> {
  // The rest as one call, the paths standing in as a mark no document holds; the same key order as ever.
  const mark = JSON.stringify(`paths-${randomUUID()}`)
  const rest = JSON.stringify({ ...document, paths: mark.slice(1, -1) })
  const at = rest.indexOf(mark)
  const parts: Buffer[] = []
  let pending: string[] = [`${rest.slice(0, at)}{`]
  let pendingLength = pending[0]?.length ?? 0
  const flush = (): void => {
    if (pending.length > 0) parts.push(Buffer.from(pending.join('')))
    pending = []
    pendingLength = 0
  }
  let comma = ''
  for (const [path, item] of Object.entries(document.paths)) {
    await pace()
    const text = `${comma}${JSON.stringify(path)}:${JSON.stringify(item)}`
    comma = ','
    pending.push(text)
    pendingLength += text.length
    if (pendingLength >= PART_BYTES) flush()
  }
  pending.push(`}${rest.slice(at + mark.length)}`)
  flush()
  return new KeptText(parts)
}
