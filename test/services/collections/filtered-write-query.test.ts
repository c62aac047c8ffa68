import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { DECLARATIONS, declarationFiles } from './fixture.js'

/**
 * A filtered write's query string (PATCH or DELETE on the collection, and the aggregate) is the list's
 * filters: the parameters are the list's own objects where there is nothing to leave out, copies
 * without examples otherwise, and `q` with an example no record matches. Sharing must change nothing
 * the API description shows or the routes check.
 */
const files = declarationFiles()
let server: RunningServer
beforeAll(async () => { server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections') }) })
afterAll(async () => { await server.close() })

interface Parameter { name: string, in: string, schema?: Record<string, unknown>, example?: unknown, examples?: unknown }
type Operations = Record<string, Record<string, { operationId?: string, parameters?: Parameter[] }>>

/** What a list takes that a filtered write does not: the page's and the format's parameters, and `fields` (the list's own). */
const LIST_ONLY = ['limit', 'cursor', 'sort', 'count', 'download', 'bom', 'fields']

describe('a filtered write\'s query string', () => {
  it('lists the list\'s filters, without their examples, and q with an example no record matches', async () => {
    const document = (await request(`${server.origin}/openapi.json`)).body as { paths: Operations }
    const query = (path: string, method: string): Map<string, Parameter> =>
      new Map((document.paths[path]?.[method]?.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p]))
    const list = query('/books', 'get')
    const deleteWhere = query('/books', 'delete')
    const patchWhere = query('/books', 'patch')
    expect(list.size).toBeGreaterThan(20)
    for (const write of [deleteWhere, patchWhere]) {
      expect([...write.keys()].sort()).toEqual([...[...list.keys()].filter((p) => !LIST_ONLY.includes(p)), 'all'].sort())
      for (const [name, parameter] of write) {
        if (name === 'all' || name === 'q') continue
        const { example: _e, examples: _es, ...listed } = list.get(name) as Parameter
        const { examples: _s, example: _se, ...listedSchema } = listed.schema ?? {}
        const { example: _we, examples: _wes, ...written } = parameter
        expect({ ...written, schema: written.schema }, name).toEqual({ ...listed, schema: listedSchema })
      }
      expect(JSON.stringify(write.get('q'))).toContain('no record holds this text')
    }
    expect(JSON.stringify(list.get('q'))).not.toContain('no record holds this text')
  })

  it('refuses a bad filter value as the list does, and selects with a good one', async () => {
    const listed = await request(`${server.origin}/books?year=long-ago`)
    expect(listed.status).toBe(400)
    for (const method of ['DELETE', 'PATCH']) {
      const refused = await request(`${server.origin}/books?year=long-ago`, { method, json: method === 'PATCH' ? { available: false } : undefined })
      expect(refused.status, method).toBe(400)
      expect((refused.body as { code?: string }).code).toBe((listed.body as { code?: string }).code)
      expect(refused.text).toContain('year')
    }
    const created = await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', year: 1965, price: 9, available: true } })
    expect(created.status).toBe(201)
    const patched = await request(`${server.origin}/books?year=1965`, { method: 'PATCH', json: { available: false } })
    expect({ status: patched.status, body: patched.body }).toEqual({ status: 200, body: { changed: 1 } })
    const deleted = await request(`${server.origin}/books?year[gte]=1900&q=dune`, { method: 'DELETE' })
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 200, body: { changed: 1 } })
  })
})
