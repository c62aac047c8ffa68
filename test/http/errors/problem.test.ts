import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { MESSAGES } from '../../../src/http/errors/messages/index.js'
import { LANGUAGES } from '../../../src/http/errors/language.js'
import { errorCatalogue, SERVICES } from '../../../src/services/index.js'

/** The catalogue of a server running every built-in service: the core codes and the services'. */
const catalogue = errorCatalogue(SERVICES)
const ERROR_CODES = catalogue.codes

let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

const invalid = async (headers: Record<string, string> = {}): ReturnType<typeof request> =>
  await request(`${server.origin}/addresses`, { method: 'POST', json: { city: 1 }, headers })

describe('problem details (RFC 9457) with the spec\'s detailed error objects', () => {
  it('has the problem content type and every member: type, title, status, detail, instance, traceId, errors', async () => {
    const res = await request(`${server.origin}/addresses/404?x=1`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    expect(res.body).toEqual({
      type: '/errors/ADDRESS_NOT_FOUND',
      title: 'Address not found',
      status: 404,
      detail: 'No address has the id 404',
      instance: '/addresses/404',
      traceId: res.headers.get('x-request-id'),
      errors: [{
        error: 'ADDRESS_NOT_FOUND',
        message: 'The address does not exist.',
        detail: 'No address has the id 404',
        help: '/errors/ADDRESS_NOT_FOUND'
      }]
    })
  })

  it('traceId follows an incoming X-Request-Id', async () => {
    const res = await request(`${server.origin}/addresses/0`, { headers: { 'x-request-id': 'trace-123' } })
    expect(res.headers.get('x-request-id')).toBe('trace-123')
    expect(res.body.traceId).toBe('trace-123')
  })

  it('lists several validation failures as several entries, each with its own code and help link', async () => {
    const res = await invalid()
    expect(res.body.type).toBe('/errors/VALIDATION_FAILED')
    expect(res.body.errors).toHaveLength(3)
    for (const entry of res.body.errors) {
      expect(Object.keys(entry).sort()).toEqual(['detail', 'error', 'help', 'message'])
      expect(entry.help).toBe(`/errors/${entry.error as string}`)
    }
    expect(res.body.detail).toBe(res.body.errors.map((e: any) => e.detail).join('; '))
  })

  it('help links resolve to the code\'s catalogue entry', async () => {
    const res = await invalid()
    const help = await request(new URL(res.body.errors[0].help, server.origin).href)
    expect(help.status).toBe(200)
    expect(help.body.code).toBe(res.body.errors[0].error)
  })

  it('unknown paths anywhere are a 404 ROUTE_NOT_FOUND problem; malformed URLs a 400 problem', async () => {
    const res = await request(`${server.origin}/nothing/here`)
    expect(res.status).toBe(404)
    expect(res.body.errors[0].error).toBe('ROUTE_NOT_FOUND')
    const bad = await request(`${server.origin}/addresses/%E0%A4%A`)
    expect(bad.status).toBe(400)
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(bad.body.traceId).toBe(bad.headers.get('x-request-id'))
  })
})

describe('the catalogue of codes', () => {
  it('codes are letters, digits, dash and underscore, never an HTTP status', () => {
    for (const code of ERROR_CODES) {
      expect(code).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(code).not.toMatch(/^\d+$/)
      expect(catalogue.status(code)).toBeGreaterThanOrEqual(400)
    }
  })

  it('keeps the codes clients rely on (renaming one is a breaking change)', () => {
    expect(ERROR_CODES).toEqual(expect.arrayContaining([
      'VALIDATION_FAILED', 'FIELD_REQUIRED', 'FIELD_TYPE', 'JSON_EXPECTED', 'MALFORMED_JSON', 'FORBIDDEN_PROPERTY',
      'BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'NOT_ACCEPTABLE', 'METHOD_NOT_ALLOWED', 'ROUTE_NOT_FOUND',
      'INVALID_ID', 'ID_MISMATCH', 'INVALID_CURSOR', 'PRECONDITION_FAILED', 'ADDRESS_NOT_FOUND', 'STUDENT_NOT_FOUND',
      'STORE_UNAVAILABLE', 'INTERNAL'
    ]))
  })

  it('every code has a title and message in every language, and German differs from English', () => {
    for (const language of LANGUAGES) {
      for (const code of ERROR_CODES) {
        expect(catalogue.texts(language, code).title.length).toBeGreaterThan(0)
        expect(catalogue.texts(language, code).message.length).toBeGreaterThan(0)
      }
    }
    for (const code of ERROR_CODES) expect(catalogue.texts('de', code).message).not.toBe(catalogue.texts('en', code).message)
  })
})

describe('Accept-Language', () => {
  it('de gives German titles and messages, Content-Language: de and Vary: Accept-Language; detail stays English', async () => {
    const en = await invalid()
    const de = await invalid({ 'accept-language': 'de' })
    expect(de.headers.get('content-language')).toBe('de')
    expect(de.headers.get('vary')).toMatch(/Accept-Language/)
    expect(de.body.title).toBe('Ungültige Anfrage')
    expect(de.body.errors.map((e: any) => e.message)).toContain('name ist erforderlich.')
    expect(de.body.detail).toBe(en.body.detail)
    expect(de.body.errors.map((e: any) => e.detail)).toEqual(en.body.errors.map((e: any) => e.detail))
    expect(de.body.errors.map((e: any) => e.error)).toEqual(en.body.errors.map((e: any) => e.error))
  })

  it.each([
    ['fr;q=0.9, de;q=0.8', 'de'],
    ['de-CH', 'de'],
    ['en;q=0.5, de', 'de'],
    ['de;q=0.4, en;q=0.6', 'en'],
    ['fr', 'en'],
    ['*', 'en'],
    ['', 'en'],
    ['%%%garbage', 'en']
  ])('Accept-Language %j picks %s', async (header, expected) => {
    const res = await invalid(header === '' ? {} : { 'accept-language': header })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-language')).toBe(expected)
    expect(res.body.title).toBe(MESSAGES[expected as 'en' | 'de'].VALIDATION_FAILED.title)
  })

  it('successful responses carry neither Content-Language nor Vary: Accept-Language', async () => {
    const created = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'A', city: 'B', postalCode: 'C' }, headers: { 'accept-language': 'de' } })
    expect(created.status).toBe(201)
    expect(created.headers.get('content-language')).toBeNull()
    // Vary: Accept (version negotiation) is expected; Accept-Language only on problems.
    expect(created.headers.get('vary') ?? '').not.toMatch(/accept-language/i)
  })
})
