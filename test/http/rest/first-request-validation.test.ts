import type { FastifySchema, RouteOptions } from 'fastify'
import Fastify from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { collectionValidator } from '../../../src/services/collections/validation.js'
import { installValidators } from '../../../src/http/rest/validation.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../../services/collections/fixture.js'

/**
 * A start compiles no validator and makes no ajv instance (both wait for a route's first request):
 * the first request after a start is checked exactly as any later one, and every schema a route
 * declares compiles (forced here, as no start does any more).
 */
const files = declarationFiles()
const SCHEMA_PARTS = ['body', 'querystring', 'params', 'headers'] as const

describe('the first request after a start', () => {
  let server: RunningServer | undefined
  afterEach(async () => { await server?.close(); server = undefined })

  it('refuses a bad body of a declared collection, as the next one is refused', async () => {
    server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections') })
    const bad = { title: 'Dune', year: 'long ago', price: 9, available: true }
    const first = await request(`${server.origin}/books`, { method: 'POST', json: bad })
    expect(first.status).toBe(400)
    expect(first.headers.get('content-type')).toContain('application/problem+json')
    expect(first.text).toMatch(/year/)
    const again = await request(`${server.origin}/books`, { method: 'POST', json: bad })
    const { traceId: _first, ...firstProblem } = first.body as Record<string, unknown>
    const { traceId: _again, ...againProblem } = again.body as Record<string, unknown>
    expect({ status: again.status, problem: againProblem }).toEqual({ status: first.status, problem: firstProblem })
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { ...bad, year: 1965 } })).status).toBe(201)
  })

  it('refuses a bad query string of a declared collection first thing', async () => {
    server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections') })
    const first = await request(`${server.origin}/books?limit=many`)
    expect(first.status).toBe(400)
    expect(first.headers.get('content-type')).toContain('application/problem+json')
  })

  it('refuses a bad body of the built-in services first thing', async () => {
    server = await startServer()
    const first = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 'old' } })
    expect(first.status).toBe(400)
    expect(first.text).toMatch(/age/)
    expect((await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })).status).toBe(201)
  })
})

describe('every route schema', () => {
  it('compiles, with the validators its routes use', async () => {
    const routes: RouteOptions[] = []
    const server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections') }, { onRoute: (route) => { routes.push(route) } })
    try {
      // The built-in services' compiler, as installValidators sets it on the server.
      const builtIn = Fastify()
      installValidators(builtIn)
      const compileBuiltIn = builtIn.validatorCompiler
      let compiled = 0
      for (const route of routes) {
        const declared = /^(\/v\d+)?\/(books|notes)(\/|$)/.test(route.url)
        for (const httpPart of SCHEMA_PARTS) {
          const schema = (route.schema as Record<string, FastifySchema | undefined> | undefined)?.[httpPart]
          if (schema === undefined || schema === null) continue
          const input = { schema, method: String(route.method), url: route.url, httpPart }
          // Checking a value compiles the lazy validator: a schema that could not compile throws here.
          const check = declared ? collectionValidator(input) : compileBuiltIn?.(input)
          expect(() => check?.({}), `${String(route.method)} ${route.url} ${httpPart}`).not.toThrow()
          compiled++
        }
      }
      expect(compiled).toBeGreaterThan(50)
      await builtIn.close()
    } finally {
      await server.close()
    }
  })
})
