import { describe, expect, it } from 'vitest'
import type { OpenApiDocument } from '../../../src/http/openapi/document.js'
import { pacedBySlices } from '../../../src/http/openapi/document.js'
import { pacedJson } from '../../../src/http/openapi/paced-json.js'

/** The document's text written path by path is the text JSON.stringify writes, and it lets the event loop go on the way. */
describe('pacedJson', () => {
  const paths = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`/things${i}/{id}`, { get: { operationId: `getThing${i}`, responses: { 200: { description: 'a "thing" \u2028', content: {} } } } }]))
  const document = { openapi: '3.1.0', info: { title: 'paths-x', version: '1' }, paths, components: { schemas: { A: { type: 'string', examples: ['paths-'] } } }, security: [] } as unknown as OpenApiDocument

  it('writes what JSON.stringify writes, keys in the same order', async () => {
    expect((await pacedJson(document, pacedBySlices())).toString()).toBe(JSON.stringify(document))
    expect((await pacedJson({ ...document, paths: {} }, pacedBySlices())).toString()).toBe(JSON.stringify({ ...document, paths: {} }))
  })

  it('lets others run between slices of paths', async () => {
    let ranMeanwhile = false
    setImmediate(() => { ranMeanwhile = true })
    let seenBeforeEnd = false
    const pace = pacedBySlices()
    await pacedJson(document, () => { seenBeforeEnd ||= ranMeanwhile; return pace() })
    expect(seenBeforeEnd).toBe(true)
  })
})
