import type { RouteOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeConfig, type ConfigOverrides } from '../../../src/options.js'
import { declared, declareRoutes } from '../../../src/http/routes/index.js'
import { buildServer } from '../../../src/server.js'
import type { ServiceDescriptor } from '../../../src/services/types.js'
import { notesService } from '../../fixtures/notes-service.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, expectShape, security, writeTokensFile, type TokensFile } from '../security/helpers.js'

const ACCESS = ['public', 'read', 'write', 'metrics']

/** Builds a server and hands back every route it registered, as the route options stand once the server is ready. */
async function routesOf (overrides: ConfigOverrides, services: ServiceDescriptor[] = []): Promise<RouteOptions[]> {
  const routes: RouteOptions[] = []
  // The options object each onRoute hook sees is the one the later hooks (the scopes' declarations) complete.
  const app = await buildServer(makeConfig({ logLevel: 'silent', ...overrides }), { onRoute: (route) => { routes.push(route) }, services })
  await app.close()
  return routes
}

/** The routes that do not say, completely, what they are. */
function undeclared (routes: RouteOptions[]): string[] {
  return routes.filter((r) => {
    const declaration = declared(r.config)
    return declaration === undefined || !ACCESS.includes(declaration.access)
  }).map((r) => `${[r.method].flat().join(',')} ${r.url}`)
}

/** A service whose one route declares nothing at all. */
const bare: ServiceDescriptor = {
  name: 'bare',
  versions: [],
  enabled: () => true,
  links: () => [],
  tags: [],
  paths: () => [{ path: '/bare' }],
  register: async (app) => { app.get('/bare', { schema: { hide: true } }, async () => ({ open: true })) }
}

let tokens: TokensFile<'all'>
beforeAll(async () => { tokens = await writeTokensFile({ all: ['read', 'write', 'metrics'] }) })
afterAll(async () => { await tokens?.remove() })

describe('every route declares its service and access', () => {
  it('on a server with every service and every option that adds routes or hooks', async () => {
    const routes = await routesOf({
      security: security({
        authTokensFile: tokens.path, metrics: true, auditLog: true, rateLimit: { max: 1000, windowMs: 60_000 }, corsOrigins: '*', securityHeaders: true, overload: true
      }),
      versioning: { uri: true, mediaType: true }
    }, [notesService()])
    // Every kind of route is there: the services, their /vN twins, static files, 405s, the server's own pages.
    for (const url of ['/students/:id', '/v1/students', '/v2/addresses/:id', '/students/assets/*', '/graphql', '/graphiql/*', '/events', '/app/*', '/batch', '/docs/*', '/docs/api/*', '/errors/:code', '/metrics', '/healthz', '/openapi.json', '/', '/notes']) {
      expect(routes.map((r) => r.url), url).toContain(url)
    }
    expect(undeclared(routes)).toEqual([])
    expect(new Set(routes.map((r) => declared(r.config)?.service))).toEqual(new Set([
      'students', 'addresses', 'albums', 'events', 'batch', 'app', 'notes', 'metrics', 'openapi', 'health', 'errors', 'docs', 'home', 'cors'
    ]))
  })

  it('and the versioned twins carry their version', async () => {
    const routes = await routesOf({})
    const version = (method: string, url: string): number[] => routes.filter((r) => r.url === url && [r.method].flat().includes(method)).map((r) => declared(r.config)?.version ?? 0)
    expect(version('POST', '/v1/students')).toEqual([1])
    expect(version('PUT', '/v2/students/:id')).toEqual([2])
    expect(version('GET', '/students/:id').sort()).toEqual([1, 2]) // the base path: Accept picks one of two routes
    expect(version('GET', '/graphql')).toEqual([0])
  })

  it('(the walk finds a route that does not)', async () => {
    expect(undeclared(await routesOf({}, [bare]))).toEqual(['GET /bare', 'HEAD /bare'])
  })

  it('a scope and a route that state a field differently keep the server from starting', async () => {
    const contradicts: ServiceDescriptor = {
      ...bare,
      register: async (app) => {
        await app.register(async (scope) => {
          declareRoutes(scope, { service: 'bare', access: 'public' })
          scope.get('/bare', { config: { rqs: { access: 'write' } } }, async () => ({}))
        })
      }
    }
    await expect(buildServer(makeConfig({ logLevel: 'silent' }), { services: [contradicts] })).rejects.toThrow('GET /bare: declared access write and public')
  })
})

describe('deny by default: with authentication on, a route that declares no access is refused', () => {
  let server: RunningServer
  let open: RunningServer
  beforeAll(async () => {
    server = await startServer({ security: security({ authTokensFile: tokens.path }) }, { services: [notesService({ undeclaredRoute: true }), bare] })
    open = await startServer({}, { services: [notesService({ undeclaredRoute: true }), bare] })
  })
  afterAll(async () => {
    await server?.close()
    await open?.close()
  })

  it('with no token or with every scope: 403 FORBIDDEN in the shape of its path', async () => {
    for (const path of ['/bare', '/notes/undeclared']) {
      for (const headers of [{}, bearer(tokens.tokens.all)]) {
        const res = await request(`${server.origin}${path}`, { headers })
        expectShape(res, 'problem', 403, 'FORBIDDEN')
        expect(res.body.detail, path).toMatch(/declares no access rule/)
      }
    }
    // The declared routes beside it answer as they should.
    expect((await request(`${server.origin}/notes`, { headers: bearer(tokens.tokens.all) })).status).toBe(200)
  })

  it('without authentication nothing is checked, so the route answers', async () => {
    expect((await request(`${open.origin}/bare`)).status).toBe(200)
    expect((await request(`${open.origin}/notes/undeclared`)).status).toBe(200)
  })
})

/**
 * What needs a token, over HTTP, wherever the services are mounted (what
 * test/http/security/service-layout.test.ts asked of the path classifier).
 * `token` is what an anonymous request gets: 401 needs one, a 2xx or 404 does not.
 */
describe('what each route declares, as a client meets it', () => {
  const cases: Array<{ name: string, overrides: ConfigOverrides, cors?: boolean, needsToken: string[], open: Array<[string, number]> }> = [
    {
      name: 'the default mounts',
      overrides: {},
      needsToken: ['GET /students/0', 'GET /v2/students/0', 'POST /students', 'DELETE /v1/students/0', 'PATCH /students', 'GET /addresses/1', 'GET /v1/addresses',
        'PUT /v2/addresses/1', 'POST /graphql', 'GET /graphql?query={albums{title}}', 'HEAD /events', 'POST /events'],
      open: [['GET /students/assets/index.html', 200], ['GET /', 200], ['GET /healthz', 200], ['GET /readyz', 200], ['GET /openapi.json', 200],
        ['GET /docs/api/static/index.html', 200], ['GET /docs/', 200], ['GET /errors/FORBIDDEN', 200], ['GET /graphql/schema.graphql', 200],
        ['GET /graphiql', 200], ['GET /app/', 200], ['OPTIONS /students', 204], ['POST /errors', 405], ['POST /students/assets/x', 405], ['GET /studentsX', 404]]
    },
    {
      name: 'moved bases, no URI versioning, the student service at the root',
      overrides: { students: { base: '/' }, addresses: { base: '/book' }, albums: { base: '/music' }, versioning: { uri: false } },
      needsToken: ['GET /0', 'POST /', 'PUT /', 'DELETE /0', 'GET /book/addresses/1', 'POST /book/addresses', 'POST /music/graphql'],
      open: [['GET /healthz', 200], ['GET /music/graphiql', 200], ['GET /assets/index.html', 200], ['GET /docs/', 200], ['GET /errors', 200],
        ['GET /v2/addresses', 404], ['POST /v2/students', 404]]
    },
    {
      // @fastify/cors adds `OPTIONS *`: declared public, so a plain OPTIONS of an unknown path is still a 404, not refused.
      name: 'with CORS',
      overrides: {},
      cors: true,
      needsToken: ['GET /students', 'POST /addresses'],
      open: [['OPTIONS /nowhere', 404], ['OPTIONS /students', 204], ['GET /nowhere', 404]]
    }
  ]

  for (const { name, overrides, cors, needsToken, open } of cases) {
    describe(name, () => {
      let server: RunningServer
      beforeAll(async () => {
        server = await startServer({ ...overrides, security: security({ authTokensFile: tokens.path, metrics: true, ...(cors === true ? { corsOrigins: '*' as const } : {}) }) })
      })
      afterAll(async () => { await server?.close() })

      const send = async (line: string, token?: string): ReturnType<typeof request> => {
        const [method, path] = line.split(' ') as [string, string]
        const body = ['POST', 'PUT'].includes(method) ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}
        return await request(`${server.origin}${path}`, { method, ...body, headers: { ...body.headers, ...(token === undefined ? {} : bearer(token)) } })
      }

      it('records, GraphQL, the feed and the 405s of record paths need a token', async () => {
        for (const line of needsToken) {
          const anonymous = await send(line)
          expect(anonymous.status, line).toBe(401)
          expect((await send(line, tokens.tokens.all)).status, line).not.toBe(401)
        }
      })

      it('pages, documents, static files, health, the catalogue and unknown paths do not', async () => {
        for (const [line, status] of open) expect((await send(line)).status, line).toBe(status)
      })

      it('/metrics needs the metrics scope', async () => {
        expect((await send('GET /metrics')).status).toBe(401)
        expect((await send('GET /metrics', tokens.tokens.all)).status).toBe(200)
      })
    })
  }
})
