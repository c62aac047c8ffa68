import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'

/** The list routes' query parameters in the OpenAPI document: every one, with a description. */
describe('OpenAPI: list query parameters', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer() })
  afterAll(async () => { await server.close() })

  it.each([
    ['/students', ['id', 'firstName', 'lastName', 'age']],
    ['/v2/students', ['id', 'firstName', 'lastName', 'age']],
    ['/addresses', ['id', 'name', 'city', 'postalCode']]
  ])('documents every parameter of GET %s', async (path, fields) => {
    const doc = (await request(`${server.origin}/openapi.json`)).body
    // The query string's parameters (the operation also documents request headers such as Accept).
    const parameters: Array<{ name: string, in: string, description?: string, schema: { type: string } }> = doc.paths[path].get.parameters.filter((p: { in: string }) => p.in === 'query')
    const names = parameters.map((p) => p.name)
    for (const name of ['limit', 'cursor', 'sort', 'q', 'count']) expect(names).toContain(name)
    for (const field of fields) {
      for (const op of ['', '[ne]', '[gt]', '[gte]', '[lt]', '[lte]']) expect(names).toContain(`${field}${op}`)
    }
    expect(names).toContain(`${fields[1] as string}[contains]`)
    expect(names).not.toContain('age[contains]')
    for (const p of parameters) {
      expect(p.in).toBe('query')
      expect(p.description?.length ?? 0, p.name).toBeGreaterThan(20)
    }
  })
})
