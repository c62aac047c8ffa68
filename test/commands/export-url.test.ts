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
