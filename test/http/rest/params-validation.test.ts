import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { installValidators, paramsAlwaysValid } from '../../../src/http/rest/validation.js'
import { IdParams } from '../../../src/services/students/schema.js'

/**
 * Path parameters whose check could never fail are not checked (no ajv call
 * on a GET by id); every other params schema still is.
 */
describe('paramsAlwaysValid', () => {
  it('holds for plain strings the path has, described or not', () => {
    expect(paramsAlwaysValid(IdParams, '/students/:id')).toBe(true)
    expect(paramsAlwaysValid({ type: 'object', properties: { id: { type: 'string', description: 'd', 'x-accepts': {} } }, required: ['id'] }, '/v1/students/:id')).toBe(true)
    expect(paramsAlwaysValid({ type: 'object', properties: { id: { type: 'string' } } }, '/a/:id')).toBe(true)
  })

  it('fails for a constraint, another type, a default, a closed object or a required name the path lacks', () => {
    expect(paramsAlwaysValid(Type.Object({ id: Type.String({ pattern: '^[0-9]+$' }) }), '/s/:id')).toBe(false)
    expect(paramsAlwaysValid(Type.Object({ id: Type.String({ format: 'uuid' }) }), '/s/:id')).toBe(false)
    expect(paramsAlwaysValid(Type.Object({ id: Type.String({ maxLength: 3 }) }), '/s/:id')).toBe(false)
    expect(paramsAlwaysValid(Type.Object({ id: Type.Integer() }), '/s/:id')).toBe(false)
    expect(paramsAlwaysValid(Type.Object({ id: Type.String({ default: '0' }) }), '/s/:id')).toBe(false)
    expect(paramsAlwaysValid(Type.Object({ id: Type.String() }, { additionalProperties: false }), '/s/:id')).toBe(false)
    expect(paramsAlwaysValid(Type.Object({ id: Type.String() }), '/s/:key')).toBe(false)
    expect(paramsAlwaysValid(undefined, '/s/:id')).toBe(false)
  })

  it('leaves the check to routes that need it, and the params as the router gave them', async () => {
    const app = Fastify({ logger: false })
    installValidators(app)
    app.get('/plain/:id', { schema: { params: IdParams } }, async (request) => request.params)
    app.get('/digits/:id', { schema: { params: Type.Object({ id: Type.String({ pattern: '^[0-9]+$' }) }) } }, async (request) => request.params)
    expect((await app.inject('/plain/007')).json()).toEqual({ id: '007' })
    expect((await app.inject('/plain/x%20y')).json()).toEqual({ id: 'x y' })
    expect((await app.inject('/digits/42')).json()).toEqual({ id: '42' })
    expect((await app.inject('/digits/abc')).statusCode).toBe(400)
    await app.close()
  })
})
