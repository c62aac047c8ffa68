import { randomUUID } from 'node:crypto'
import type { OpenApiDocument, Pace } from './document.js'

/**
 * JSON.stringify(document) as UTF-8 bytes, its paths written one by one
 * with `pace` between them: at the declaration limits the text is tens of
 * megabytes, seconds of one call that would hold every other request. Each
 * path is encoded as it is written, and the bytes are what is kept and
 * sent: one string of them all would be joined, searched and encoded again
 * in one go (and on every request that sends it).
 */
export async function pacedJson (document: OpenApiDocument, pace: Pace): Promise<Buffer> {
  const parts: Buffer[] = []
  let comma = ''
  for (const [path, item] of Object.entries(document.paths)) {
    await pace()
    parts.push(Buffer.from(`${comma}${JSON.stringify(path)}:${JSON.stringify(item)}`))
    comma = ','
  }
  // The rest as one call, the paths standing in as a mark no document holds; the same key order as ever.
  const mark = JSON.stringify(`paths-${randomUUID()}`)
  const rest = JSON.stringify({ ...document, paths: mark.slice(1, -1) })
  const at = rest.indexOf(mark)
  return Buffer.concat([Buffer.from(`${rest.slice(0, at)}{`), ...parts, Buffer.from(`}${rest.slice(at + mark.length)}`)])
}
