import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { notesService } from '../fixtures/notes-service.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { bearer, expectShape, security, writeTokensFile, type TokensFile } from '../http/security/helpers.js'

/*
 * A service added through the public API (buildServer's `services`) and
 * nothing else: no central file names it. Its routes declare their service
 * and access, and every cross-cutting feature covers it from that alone.
 */

const MAX = 6
let tokens: TokensFile<'reader' | 'writer' | 'scraper' | 'limited'>
let server: RunningServer
const lines: string[] = []

beforeAll(async () => {
  tokens = await writeTokensFile({ reader: ['read'], writer: ['read', 'write'], scraper: ['metrics'], limited: ['read'] })
  server = await startServer({
    logLevel: 'info',
    security: security({ authTokensFile: tokens.path, metrics: true, auditLog: true, rateLimit: { max: MAX, windowMs: 60_000 } })
  }, { services: [notesService()], logStream: { write: (line) => { lines.push(line) } } })
})
afterAll(async () => {
  await server?.close()
  await tokens?.remove()
})

const send = async (method: string, token?: string, json?: unknown): ReturnType<typeof request> =>
  await request(`${server.origin}/notes`, { method, ...(json === undefined ? {} : { json }), headers: token === undefined ? {} : bearer(token) })

describe('a service from outside (test/fixtures/notes-service.ts)', () => {
  it('is behind authentication: its read needs read, its write needs write', async () => {
    expectShape(await send('GET'), 'problem', 401, 'UNAUTHENTICATED')
    expectShape(await send('POST', undefined, { text: 'x' }), 'problem', 401, 'UNAUTHENTICATED')
    expectShape(await send('POST', tokens.tokens.reader, { text: 'x' }), 'problem', 403, 'FORBIDDEN')
    const created = await send('POST', tokens.tokens.writer, { text: 'remember the milk' })
    expect(created.status).toBe(201)
    expect((await send('GET', tokens.tokens.reader)).body).toEqual([{ id: '0', text: 'remember the milk' }])
  })

  it('is in the audit log: its declared write, with its service name, principal and outcome', async () => {
    const audits = (): any[] => lines.filter((l) => l.includes('"msg":"audit"')).map((l) => JSON.parse(l).audit)
    await expect.poll(() => audits().length).toBe(3)
    expect(audits()).toEqual([
      { action: 'create', service: 'notes', principal: null, outcome: 'refused', status: 401, serverRequestId: expect.any(String) },
      { action: 'create', service: 'notes', principal: 'reader', outcome: 'refused', status: 403, serverRequestId: expect.any(String) },
      { action: 'create', service: 'notes', id: '0', principal: 'writer', outcome: 'success', status: 201, serverRequestId: expect.any(String) }
    ])
  })

  it('is counted by /metrics under its own service label', async () => {
    const text = (await request(`${server.origin}/metrics`, { headers: bearer(tokens.tokens.scraper) })).text
    expect(text).toContain('rqs_http_requests_total{service="notes",route="/notes",method="POST",status="201"} 1')
    expect(text).toMatch(/rqs_http_requests_total\{service="notes",route="\/notes",method="GET",status="200"\} \d/)
  })

  it('is rate-limited like every route', async () => {
    for (let i = MAX - 1; i >= 0; i--) {
      const res = await send('GET', tokens.tokens.limited)
      expect(res.status).toBe(200)
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${i};`))
    }
    expectShape(await send('GET', tokens.tokens.limited), 'problem', 429, 'RATE_LIMITED')
  })

  it('is in the OpenAPI document, behind its bearer scheme, with its tag', async () => {
    const document = (await request(`${server.origin}/openapi.json`)).body
    expect(document.paths['/notes'].get).toMatchObject({ operationId: 'listNotes', tags: ['notes'] })
    expect(document.paths['/notes'].post).toMatchObject({ operationId: 'createNote', tags: ['notes'] })
    expect(document.tags.map((t: { name: string }) => t.name)).toContain('notes')
    expect(document.security).toEqual([{ bearerAuth: [] }])
  })

  it('is in the directory at /', async () => {
    const directory = await request(`${server.origin}/`)
    expect(directory.body.links.notes).toEqual({ href: '/notes', title: 'Notes (a test fixture)', type: 'application/json' })
    expect(directory.headers.get('link')).toContain('</notes>; rel="notes"')
  })
})

describe('its error codes (declared in its descriptor)', () => {
  it('are in /errors and /errors/{code}, in English and German', async () => {
    // The anonymous budget is spent by the rate-limit test above; the scraper's token has its own.
    const headers = { accept: 'application/json', ...bearer(tokens.tokens.scraper) }
    const index = await request(`${server.origin}/errors`, { headers })
    expect(index.status).toBe(200)
    expect(JSON.stringify(index.body)).toContain('NOTE_NOT_FOUND')
    const en = await request(`${server.origin}/errors/NOTE_NOT_FOUND`, { headers })
    expect(en.status).toBe(200)
    expect(JSON.stringify(en.body)).toContain('Note not found')
    const de = await request(`${server.origin}/errors/NOTE_NOT_FOUND`, { headers: { ...headers, 'accept-language': 'de' } })
    expect(JSON.stringify(de.body)).toContain('Notiz nicht gefunden')
  })

  it('are what its routes answer with, in problem details', async () => {
    const missing = await request(`${server.origin}/notes/404`, { headers: bearer(tokens.tokens.reader) })
    expectShape(missing, 'problem', 404, 'NOTE_NOT_FOUND')
  })
})
