import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import type { CommandIO } from '../../src/commands/common.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { security, writeTokensFile, type TokensFile } from '../http/security/helpers.js'

/**
 * Issue 22, item 10: `rqs export --url` exports from a running server, any
 * store (here the memory store, which no other process can open), through
 * its API: the directory names the collection, the list streams.
 */
async function exportOf (argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number, stdout: string, stderr: string }> {
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (c: Buffer) => { out += c.toString() })
  let err = ''
  const io: CommandIO = { stdin: new PassThrough(), stdout, stderr: { write: (t: string) => { err += t; return true } } as CommandIO['stderr'], env }
  const code = await runExport(argv, io)
  return { code, stdout: out, stderr: err }
}

let server: RunningServer
beforeAll(async () => {
  server = await startServer({ students: { base: '/school' } })
  for (const [firstName, age] of [['Ada', 36], ['Alan', 41], ['Grace', 85]] as const) {
    await request(`${server.origin}/school`, { method: 'POST', json: { firstName, lastName: 'X', age } })
  }
})
afterAll(async () => { await server?.close() })

describe('rqs export --url', () => {
  it('writes the records of a running memory store as NDJSON, found through its directory (a moved base too)', async () => {
    const out = await exportOf(['--url', server.origin, '--service', 'students'])
    expect(out.code).toBe(0)
    expect(out.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { id: 0, firstName: 'Ada', lastName: 'X', age: 36 }, { id: 1, firstName: 'Alan', lastName: 'X', age: 41 }, { id: 2, firstName: 'Grace', lastName: 'X', age: 85 }
    ])
    expect(out.stderr).toMatch(/^rqs export: 3 students exported/)
  })

  it('passes --query to the server and writes CSV with --format csv', async () => {
    const out = await exportOf(['--url', server.origin, '--service', 'students', '--query', 'age[gte]=40&sort=-age', '--format', 'csv'])
    expect(out.code).toBe(0)
    expect(out.stdout).toBe('id,firstName,lastName,age\r\n2,Grace,X,85\r\n1,Alan,X,41\r\n')
  })

  it('says in one line what went wrong: a query the server refuses, a collection it does not serve, no server', async () => {
    const bad = await exportOf(['--url', server.origin, '--service', 'students', '--query', 'age[gte]=old'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^rqs export: \/school\?age\[gte\]=old answered 400: .*age/)
    const unknown = await exportOf(['--url', server.origin, '--service', 'books'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('serves no collection "books"')
    const closed = await startServer()
    const origin = closed.origin
    await closed.close() // a port nobody listens on
    const gone = await exportOf(['--url', origin, '--service', 'students'])
    expect(gone.code).toBe(1)
    expect(gone.stderr).toBe(`rqs export: cannot reach ${origin}: connection refused\n`)
    const both = await exportOf(['--url', server.origin, '--store', 'sqlite:x.db', '--service', 'students'])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--url and --store exclude each other')
  })
})

describe('rqs export --url with tokens', () => {
  let guarded: RunningServer
  let tokens: TokensFile<'reader'>
  beforeAll(async () => {
    tokens = await writeTokensFile({ reader: ['read'] })
    guarded = await startServer({ security: security({ authTokensFile: tokens.path }) })
  })
  afterAll(async () => { await guarded?.close(); await tokens?.remove() })

  it('sends --token (or RQS_TOKEN); without one the server\'s 401 is the message', async () => {
    const refused = await exportOf(['--url', guarded.origin, '--service', 'students'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/answered 401/)
    expect((await exportOf(['--url', guarded.origin, '--service', 'students', '--token', tokens.tokens.reader])).code).toBe(0)
    expect((await exportOf(['--url', guarded.origin, '--service', 'students'], { RQS_TOKEN: tokens.tokens.reader })).code).toBe(0)
  })
})

describe('rqs export --url and redirects (issue 36)', () => {
  // Two local servers: `here` (the --url) answers its directory, moves /old to /students within
  // itself, and redirects /students to `there`, which serves other records and notes the tokens it gets.
  let here: Server
  let there: Server
  let hereOrigin: string
  let thereOrigin: string
  const seenThere: Array<string | undefined> = []
  beforeAll(async () => {
    there = createServer((req, res) => {
      seenThere.push(req.headers.authorization)
      res.writeHead(200, { 'content-type': 'application/x-ndjson' })
      res.end('{"id":7,"firstName":"Other","lastName":"Host","age":1}\n')
    })
    thereOrigin = await listen(there)
    here = createServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ links: { students: { href: '/old' } } }))
      } else if (req.url?.startsWith('/old') === true) {
        res.writeHead(301, { location: '/students' }).end()
      } else {
        res.writeHead(302, { location: `${thereOrigin}/elsewhere` }).end()
      }
    })
    hereOrigin = await listen(here)
  })
  afterAll(async () => {
    await new Promise((resolve) => here?.close(resolve))
    await new Promise((resolve) => there?.close(resolve))
  })

  it('refuses a redirect to another origin, naming it, with the exit code of other failures', async () => {
    const out = await exportOf(['--url', hereOrigin, '--service', 'students', '--token', 'secret'])
    expect(out.code).toBe(1)
    expect(out.stdout).toBe('')
    expect(out.stderr).toBe(`rqs export: /students redirects to another origin, ${thereOrigin} (${thereOrigin}/elsewhere); not followed (--follow-redirects follows it)\n`)
    expect(seenThere).toEqual([])
  })

  it('follows it with --follow-redirects, without sending the token there', async () => {
    const out = await exportOf(['--url', hereOrigin, '--service', 'students', '--token', 'secret', '--follow-redirects'])
    expect(out.code).toBe(0)
    expect(out.stdout).toBe('{"id":7,"firstName":"Other","lastName":"Host","age":1}\n')
    expect(seenThere).toEqual([undefined])
    expect((await exportOf(['--help'])).stdout).toContain('--follow-redirects')
  })

  it('refuses a directory (GET /) that redirects to another origin: the first hop is checked too', async () => {
    const moved = createServer((req, res) => { res.writeHead(307, { location: `${server.origin}${req.url ?? '/'}` }).end() })
    const movedOrigin = await listen(moved)
    try {
      // Here the first hop already leaves the origin: refused at the directory.
      const out = await exportOf(['--url', movedOrigin, '--service', 'students'])
      expect(out.code).toBe(1)
      expect(out.stderr).toContain(`/ redirects to another origin, ${server.origin}`)
    } finally { await new Promise((resolve) => moved.close(resolve)) }
  })
})

async function listen (server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
