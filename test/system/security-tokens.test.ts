import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { runCliToEnd, spawnServer, type ServerProcess } from '../helpers/process.js'
import { request } from '../helpers/server.js'
import { hashToken, parseTokenFile } from '../../src/http/security/tokens.js'
import { tokenCommand } from '../../src/commands/token.js'
import { bearer, writeTokensFile, type TokensFile } from '../http/security/helpers.js'

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }

describe('rqs token', () => {
  it('prints a new 256-bit base64url token and the tokens-file entry holding only its SHA-256', async () => {
    const res = await runCliToEnd(['token', '--name', 'ci', '--scopes', 'read,write'])
    expect(res.code).toBe(0)
    const token = /^ {2}(rqs_[A-Za-z0-9_-]+)$/m.exec(res.stdout)?.[1] as string
    expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32)
    const entry = JSON.parse(/^ {2}(\{.*\})$/m.exec(res.stdout)?.[1] as string)
    expect(entry).toEqual({ name: 'ci', sha256: hashToken(token), scopes: ['read', 'write'] })
    expect(parseTokenFile(JSON.stringify({ tokens: [entry] }), 'x')).toEqual([entry])
  })

  it('--json is for scripts; two runs never give the same token', () => {
    const first = runToken(['--name', 'x', '--json'])
    const entry = JSON.parse(first.stdout).entry
    expect(entry).toEqual({ name: 'x', sha256: hashToken(JSON.parse(first.stdout).token), scopes: ['read'] })
    expect(JSON.parse(runToken(['--name', 'x', '--json']).stdout).token).not.toBe(JSON.parse(first.stdout).token)
  })

  it('exits 2 with a clear message for a missing name, a bad name or an unknown scope', () => {
    expect(runToken([])).toMatchObject({ code: 2, stderr: expect.stringContaining('--name is required') })
    expect(runToken(['--name', 'a b'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--name: a name is 1 to 64') })
    expect(runToken(['--name', 'ci', '--scopes', 'read,root'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown: root') })
    expect(runToken(['--name', 'ops', '--scopes', 'read,admin', '--json'])).toMatchObject({ code: 0 })
  })
})

/** Runs `rqs token` in this process, collecting what it prints. */
function runToken (argv: string[]): { code: number, stdout: string, stderr: string } {
  const out = new PassThrough()
  const err = new PassThrough()
  const code = tokenCommand(argv, out, err)
  return { code, stdout: String(out.read() ?? ''), stderr: String(err.read() ?? '') }
}

describe('rqs serve --auth-tokens', () => {
  let tokens: TokensFile
  let srv: ServerProcess | undefined
  afterAll(async () => {
    if (srv !== undefined && srv.child.exitCode === null) { srv.child.kill('SIGTERM'); await srv.exited }
    await tokens?.remove()
  })

  it('never logs a token; the access and audit logs name the principal; SIGHUP reloads the file (rotation)', async () => {
    tokens = await writeTokensFile({ ci: ['read', 'write'] })
    srv = await spawnServer(['--auth-tokens', tokens.path, '--access-log', '--audit-log', '--log-level', 'trace'])
    const old = tokens.tokens.ci as string
    const wrong = 'rqs_this-one-is-wrong-and-secret'
    expect((await request(`${srv.origin}/students`, { method: 'POST', json: ada, headers: bearer(old) })).status).toBe(201)
    expect((await request(`${srv.origin}/students`, { headers: bearer(wrong) })).status).toBe(401)
    expect((await request(`${srv.origin}/students/0`, { method: 'DELETE', headers: bearer(old) })).status).toBe(200)

    // Rotation: a new token for the same client, the old one retired, no restart.
    const rotated = await writeTokensFile({ ci: ['read'] })
    await writeFile(tokens.path, await readFile(rotated.path, 'utf8'))
    await rotated.remove()
    srv.child.kill('SIGHUP')
    const fresh = rotated.tokens.ci as string
    await expect.poll(async () => (await request(`${srv?.origin}/students`, { headers: bearer(fresh) })).status, { timeout: 10_000 }).toBe(200)
    expect((await request(`${srv.origin}/students`, { headers: bearer(old) })).status).toBe(401)

    // A broken file on reload keeps the tokens in force.
    await writeFile(tokens.path, '{"tokens": [')
    srv.child.kill('SIGHUP')
    await expect.poll(() => srv?.lines.some((l) => l.includes('tokens file not reloaded')), { timeout: 10_000 }).toBe(true)
    expect((await request(`${srv.origin}/students`, { headers: bearer(fresh) })).status).toBe(200)

    srv.child.kill('SIGTERM')
    expect((await srv.exited).code).toBe(0)
    const output = srv.lines.join('\n') + srv.stderr()
    for (const secret of [old, wrong, fresh]) expect(output).not.toContain(secret)
    const logs = srv.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
    const audits = logs.filter((l) => l.msg === 'audit').map((l) => l.audit)
    expect(audits).toEqual([
      { action: 'create', service: 'students', id: '0', principal: 'ci', outcome: 'success', status: 201, serverRequestId: expect.any(String) },
      { action: 'delete', service: 'students', id: '0', principal: 'ci', outcome: 'success', status: 200, serverRequestId: expect.any(String) }
    ])
    const completed = logs.filter((l) => l.msg === 'request completed')
    expect(completed.filter((l) => l.statusCode < 400).every((l) => l.principal === 'ci')).toBe(true)
    expect(completed.find((l) => l.statusCode === 401)?.principal).toBeUndefined()
  }, 60_000)

  it('a tokens file that does not load stops start-up with exit code 1 naming the problem', async () => {
    const dir = (tokens ??= await writeTokensFile({})).dir
    const bad = join(dir, 'bad.json')
    await writeFile(bad, JSON.stringify({ tokens: [{ name: 'ci', sha256: 'abc', scopes: ['read'] }] }))
    const res = await runCliToEnd(['serve', '--port', '0', '--auth-tokens', bad])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('tokens[0].sha256 must be 64 lower-case hex digits')
  })

  it('exits 2 for options that do not go together', async () => {
    const res = await runCliToEnd(['serve', '--port', '0', '--auth-jwks', 'https://idp.example/jwks'])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('--auth-jwks, --auth-issuer and --auth-audience go together')
  })
})
