import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, security, writeTokensFile, type TokensFile } from './helpers.js'

const ALLOWED = 'https://app.example'
const REFUSED = 'https://evil.example'

let server: RunningServer
let tokens: TokensFile

beforeAll(async () => {
  tokens = await writeTokensFile({ web: ['read', 'write'] })
  server = await startServer({ security: security({ corsOrigins: [ALLOWED, 'http://localhost:3000'], authTokensFile: tokens.path }) })
})
afterAll(async () => {
  await server?.close()
  await tokens?.remove()
})

function preflight (path: string, origin: string, method = 'POST'): ReturnType<typeof request> {
  return request(`${server.origin}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, if-match' }
  })
}

describe('CORS', () => {
  for (const path of ['/graphql', '/students', '/v2/students/0', '/addresses/5']) {
    it(`answers a preflight for ${path} from an allowed origin, before authentication`, async () => {
      const res = await preflight(path, ALLOWED, path === '/graphql' ? 'POST' : 'PUT')
      expect(res.status).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED)
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, DELETE, OPTIONS')
      const allowed = res.headers.get('access-control-allow-headers')?.toLowerCase().split(', ')
      expect(allowed).toEqual(['authorization', 'content-type', 'accept', 'accept-language', 'if-match', 'if-none-match', 'x-request-id'])
      expect(res.headers.get('access-control-max-age')).toBe('600')
      expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    })
  }

  it('gives a refused origin no Access-Control-Allow-Origin, so the browser keeps the answer from the page', async () => {
    const pre = await preflight('/graphql', REFUSED)
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    const actual = await request(`${server.origin}/students`, { headers: { origin: REFUSED, ...bearer(tokens.tokens.web as string) } })
    expect(actual.status).toBe(200)
    expect(actual.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('actual requests from an allowed origin: the origin echoed, the headers a script needs exposed, Vary: Origin kept', async () => {
    const created = await request(`${server.origin}/v2/addresses`, { method: 'POST', json: { name: 'A', city: 'B', postalCode: '1' }, headers: { origin: ALLOWED, ...bearer(tokens.tokens.web as string) } })
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    const exposed = created.headers.get('access-control-expose-headers')?.split(', ')
    expect(exposed).toEqual(expect.arrayContaining(['ETag', 'Location', 'Link', 'X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'WWW-Authenticate']))
    expect(created.headers.get('vary')?.split(/,\s*/)).toEqual(expect.arrayContaining(['Accept', 'Origin']))

    const graphql = await request(`${server.origin}/graphql`, { method: 'POST', json: { query: '{ albums { title } }' }, headers: { origin: ALLOWED, ...bearer(tokens.tokens.web as string) } })
    expect(graphql.body.data.albums).toHaveLength(3)
    expect(graphql.headers.get('access-control-allow-origin')).toBe(ALLOWED)
  })

  it('a refusal (401) carries the CORS headers, so the browser script can read why', async () => {
    const res = await request(`${server.origin}/students`, { headers: { origin: ALLOWED } })
    expect(res.status).toBe(401)
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED)
  })

  it('a plain OPTIONS (no Origin) keeps its usual answer: 204 with Allow, or 405 at /graphql', async () => {
    const students = await request(`${server.origin}/students`, { method: 'OPTIONS' })
    expect(students.status).toBe(204)
    expect(students.headers.get('allow')).toBe('GET, POST, PUT, HEAD, OPTIONS')
    expect((await request(`${server.origin}/graphql`, { method: 'OPTIONS' })).status).toBe(405)
  })
})

describe('CORS with *', () => {
  let open: RunningServer
  beforeAll(async () => { open = await startServer({ security: security({ corsOrigins: '*' }) }) })
  afterAll(async () => { await open?.close() })

  it('allows any origin', async () => {
    const pre = await request(`${open.origin}/graphql`, { method: 'OPTIONS', headers: { origin: REFUSED, 'access-control-request-method': 'POST' } })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe('without --cors-origin (the default)', () => {
  let plain: RunningServer
  beforeAll(async () => { plain = await startServer() })
  afterAll(async () => { await plain?.close() })

  it('there is no CORS: a preflight to /graphql is the 405 it always was', async () => {
    const res = await request(`${plain.origin}/graphql`, { method: 'OPTIONS', headers: { origin: ALLOWED, 'access-control-request-method': 'POST' } })
    expect(res.status).toBe(405)
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })
})
