import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from '../../helpers/server.js'
import { installValidators } from '../../../src/http/rest/validation.js'
import { problems } from '../../../src/http/errors/handler.js'
import { routeOtherMethods } from '../../../src/http/rest/method-not-allowed.js'
import { AppError } from '../../../src/http/errors/app-error.js'
import { sendProblem } from '../../../src/http/errors/problem.js'
import { StoreUnavailableError } from '../../../src/domain/index.js'
import { ErrorCatalogue } from '../../../src/http/errors/error-catalogue.js'
import { STUDENT_ERRORS } from '../../../src/services/students/errors.js'

/**
 * The problem layer used by another plugin exactly as a later service would:
 * setErrorHandler, setNotFoundHandler, sendProblem / AppError in routes.
 */
let app: FastifyInstance
let origin: string

beforeAll(async () => {
  app = Fastify({ logger: false, bodyLimit: 100 })
  installValidators(app)
  // STUDENT_NOT_FOUND is the student service's code: the server's catalogue has it as buildServer gives it.
  app.decorate('errorCatalogue', new ErrorCatalogue([STUDENT_ERRORS]))
  await app.register(async (v2) => {
    v2.setErrorHandler(problems.handleError)
    v2.setNotFoundHandler(problems.notFound)
    v2.get('/outage', async () => { throw new StoreUnavailableError() })
    v2.get('/thrown', async () => { throw new AppError('STUDENT_NOT_FOUND', 'No student has the id 3') })
    v2.get('/sent', async (_request, reply) => sendProblem(reply, 'STUDENT_NOT_FOUND', { detail: 'sent', headers: { 'x-extra': '1' } }))
    v2.get('/teapot', async () => { throw Object.assign(new Error('short and stout'), { statusCode: 418 }) })
    v2.post('/students', {
      schema: {
        body: {
          type: 'object',
          required: ['firstName', 'lastName', 'age'],
          properties: { firstName: { type: 'string' }, lastName: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
          additionalProperties: false
        }
      }
    }, async () => ({ ok: true }))
    routeOtherMethods(v2, '/students', ['POST'], problems.methodNotAllowed)
  }, { prefix: '/v2' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  origin = `http://127.0.0.1:${address.port}/v2`
})
afterAll(async () => { await app.close() })

describe('the problem pipeline in another plugin', () => {
  it('StoreUnavailableError → 503 STORE_UNAVAILABLE with Retry-After', async () => {
    const res = await request(`${origin}/outage`)
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect(res.body.errors[0].error).toBe('STORE_UNAVAILABLE')
  })

  it('AppError thrown and sendProblem give the same problem; extra headers pass through', async () => {
    const thrown = await request(`${origin}/thrown`, { headers: { 'accept-language': 'de' } })
    expect(thrown.status).toBe(404)
    expect(thrown.body.title).toBe('Student nicht gefunden')
    expect(thrown.body.instance).toBe('/v2/thrown')
    const sent = await request(`${origin}/sent`)
    expect(sent.status).toBe(404)
    expect(sent.body.errors[0].error).toBe('STUDENT_NOT_FOUND')
    expect(sent.headers.get('x-extra')).toBe('1')
  })

  it('other 4xx keep their status as CLIENT_ERROR', async () => {
    const res = await request(`${origin}/teapot`)
    expect(res.status).toBe(418)
    expect(res.body.errors[0].error).toBe('CLIENT_ERROR')
    expect(res.body.detail).toBe('short and stout')
  })

  it('validation → one entry per failure; body errors → 400/413/415', async () => {
    const bad = await request(`${origin}/students`, { method: 'POST', json: { firstName: 1, age: -1 } })
    expect(bad.status).toBe(400)
    expect(bad.body.errors.map((e: any) => e.error).sort()).toEqual(['FIELD_OUT_OF_RANGE', 'FIELD_REQUIRED', 'FIELD_TYPE'])
    const malformed = await request(`${origin}/students`, { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } })
    expect(malformed.body.errors[0].error).toBe('MALFORMED_JSON')
    const empty = await request(`${origin}/students`, { method: 'POST', body: '', headers: { 'content-type': 'application/json' } })
    expect(empty.body.errors[0].error).toBe('JSON_EXPECTED')
    const large = await request(`${origin}/students`, { method: 'POST', json: { firstName: 'x'.repeat(200) } })
    expect(large.status).toBe(413)
    expect(large.body.errors[0].error).toBe('BODY_TOO_LARGE')
    const xml = await request(`${origin}/students`, { method: 'POST', body: '<a/>', headers: { 'content-type': 'application/xml' } })
    expect(xml.status).toBe(415)
    expect(xml.body.errors[0].error).toBe('UNSUPPORTED_MEDIA_TYPE')
  })

  it('not-found and method-not-allowed helpers', async () => {
    const missing = await request(`${origin}/nowhere`)
    expect(missing.status).toBe(404)
    expect(missing.body.errors[0].error).toBe('ROUTE_NOT_FOUND')
    const put = await request(`${origin}/students`, { method: 'PUT', json: {} })
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('POST, OPTIONS')
  })
})
