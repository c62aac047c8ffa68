import { afterEach, describe, expect, it } from 'vitest'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { installLazyRequestLoggers } from '../../../src/http/transport/request-logger.js'
import { AccessLogController } from '../../../src/http/transport/access-log.js'
import { addStartStep, RequestStart, ReplyHeaderObjects } from '../../../src/http/routes/index.js'
import { echoRequestId } from '../../../src/http/transport/request-id.js'
import { appendVary } from '../../../src/lib/vary.js'
import { memoryStores } from '../../helpers/built-ins.js'
import { startServer, type RunningServer } from '../../helpers/server.js'
import { request as rawRequest } from 'node:http'

/** A parent logger that records the children it makes and the lines they log. */
function recordingParent (): { parent: FastifyBaseLogger, children: object[], lines: unknown[][] } {
  const children: object[] = []
  const lines: unknown[][] = []
  const make = (bindings: object): FastifyBaseLogger => {
    const log = (level: string) => (...args: unknown[]) => { lines.push([level, bindings, ...args]) }
    return { level: 'info', fatal: log('fatal'), error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug'), trace: log('trace'), silent: () => {}, child: (b: object) => { children.push(b); return make({ ...bindings, ...b }) } } as unknown as FastifyBaseLogger
  }
  return { parent: make({}), children, lines }
}

describe('every request\'s logger, read from the request (no child-logger factory per request)', () => {
  let app: FastifyInstance | undefined
  afterEach(async () => { await app?.close(); app = undefined })

  /** As the server makes it: no logger given to Fastify, per-request lines off unless `requestLogging` (Fastify's own lines then). */
  async function logged (requestLogging = false): Promise<{ app: FastifyInstance, children: object[], lines: unknown[][] }> {
    const { parent, children, lines } = recordingParent()
    app = Fastify(requestLogging ? {} : { logController: new AccessLogController({ disableRequestLogging: true }, () => undefined) })
    app.log = parent
    expect(installLazyRequestLoggers(app)).toBe(true)
    app.get('/quiet', async () => ({ ok: true }))
    app.get('/loud', async (request, reply) => {
      request.log.info({ a: 1 }, 'first')
      reply.log.warn('second')
      return { same: request.log === reply.log }
    })
    app.get('/fails', async () => { throw new Error('the disk is on fire') })
    // A scope of its own (as every service's routes are): its requests inherit the accessor.
    await app.register(async (scope) => { scope.get('/scoped', async (request) => { request.log.info('scoped'); return {} }) })
    return { app, children, lines }
  }

  it('makes no child for a request that logs nothing, and one child bound to the request id for one that does', async () => {
    const { app, children, lines } = await logged()
    expect((await app.inject('/quiet')).statusCode).toBe(200)
    expect(children).toEqual([])
    const loud = await app.inject({ url: '/loud', headers: { 'x-request-id': 'ignored-without-genReqId' } })
    expect(loud.json()).toEqual({ same: true })
    expect(children).toHaveLength(1)
    const reqId = (children[0] as { reqId: unknown }).reqId
    expect(typeof reqId).toBe('string')
    expect(lines).toEqual([['info', { reqId }, { a: 1 }, 'first'], ['warn', { reqId }, 'second']])
    await app.inject('/scoped')
    expect(lines.at(-1)).toEqual(['info', { reqId: expect.any(String) as unknown }, 'scoped'])
    expect(children).toHaveLength(2)
  })

  it('logs Fastify\'s own lines (the incoming request, its error) through the same logger, under the request id', async () => {
    const { app, lines } = await logged(true)
    expect((await app.inject('/fails')).statusCode).toBe(500)
    expect(lines.map((line) => [line[0], line[1], line.at(-1)])).toEqual([
      ['info', { reqId: 'req-1' }, 'incoming request'],
      ['error', { reqId: 'req-1' }, 'the disk is on fire']
    ])
  })

  it('changes nothing on an instance whose requests already have a log accessor (installed twice): the caller sets a factory', async () => {
    app = Fastify()
    expect(installLazyRequestLoggers(app)).toBe(true)
    expect(installLazyRequestLoggers(app)).toBe(false)
  })
})

describe('the start\'s headers, stored into the reply\'s header object', () => {
  let app: FastifyInstance | undefined
  let server: RunningServer | undefined
  afterEach(async () => { await app?.close(); app = undefined; await server?.close(); server = undefined })

  it('is the object reply.header writes: what is stored there is what getHeader reads and the head carries', async () => {
    app = Fastify()
    const objects = new ReplyHeaderObjects()
    app.get('/', async (_request, reply) => {
      const headers = objects.of(reply)!
      headers['x-one'] = '1'
      reply.header('x-two', '2')
      return { one: reply.getHeader('x-one'), two: headers['x-two'] }
    })
    const answer = await app.inject('/')
    expect(answer.json()).toEqual({ one: '1', two: '2' })
    expect(answer.headers['x-one']).toBe('1')
  })

  it('runs the steps with the header object in the server\'s start, and without one (reply.header) in a plugin used alone', async () => {
    app = Fastify()
    const start = new RequestStart()
    const seen: boolean[] = []
    await app.register(async (scope) => {
      addStartStep(scope, start, (request, reply, headers) => { seen.push(headers !== undefined); echoRequestId(request, reply, headers); return true })
      scope.get('/a', async () => 'a')
    })
    await app.register(async (scope) => {
      addStartStep(scope, undefined, (request, reply, headers) => { seen.push(headers !== undefined); echoRequestId(request, reply, headers); return true })
      scope.get('/b', async () => 'b')
    })
    const [a, b] = [await app.inject('/a'), await app.inject('/b')]
    expect(seen).toEqual([true, false])
    expect(typeof a.headers['x-request-id']).toBe('string')
    expect(typeof b.headers['x-request-id']).toBe('string')
  })

  it('appends to a Vary another hook set first, and stores a first one, as reply.header would', async () => {
    app = Fastify()
    const objects = new ReplyHeaderObjects()
    app.get('/first', async (_request, reply) => { appendVary(reply, 'Accept', objects.of(reply)); return 'x' })
    app.get('/second', async (_request, reply) => { reply.header('vary', 'Origin'); appendVary(reply, 'Accept', objects.of(reply)); return 'x' })
    app.get('/raw', async (_request, reply) => { reply.raw.setHeader('Vary', 'Origin'); appendVary(reply, 'Accept', objects.of(reply)); return 'x' })
    expect((await app.inject('/first')).headers.vary).toBe('Accept')
    expect((await app.inject('/second')).headers.vary).toBe('Origin, Accept')
    expect((await app.inject('/raw')).headers.vary).toBe('Origin, Accept')
  })

  it('writes the same head as before: the request id, the protective headers and Vary, in that order, before the type and length', async () => {
    const stores = memoryStores()
    await stores.students.create({ firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    server = await startServer({}, { stores })
    const url = new URL(`${server.origin}/students/0`)
    const head = await new Promise<string[]>((resolve, reject) => {
      rawRequest({ host: url.hostname, port: url.port, path: url.pathname }, (res) => { res.resume(); res.on('end', () => { resolve(res.rawHeaders.filter((_, i) => i % 2 === 0)) }) }).on('error', reject).end()
    })
    expect(head).toEqual(['x-request-id', 'x-content-type-options', 'x-frame-options', 'vary', 'content-type', 'content-length', 'Date', 'Connection', 'Keep-Alive'])
  })
})
