import { randomUUID } from 'node:crypto'
import type { OpenApiDocument, Pace } from './document.js'

/**
 * JSON.stringify(document), its paths written one by one with `pace`
 * between them: at the declaration limits the text is tens of megabytes,
 * seconds of one call that would hold every other request.
 */
export async function pacedJson (document: OpenApiDocument, pace: Pace): Promise<string> {
  const parts: string[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    await pace()
    parts.push(`${JSON.stringify(path)}:${JSON.stringify(item)}`)
  }
  // The rest as one call, the paths standing in as a mark no document holds; the same key order as ever.
  const mark = `paths-${randomUUID()}`
  const rest = JSON.stringify({ ...document, paths: mark })
  return rest.replace(JSON.stringify(mark), () => `{${parts.join(',')}}`)
}
