import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, security, writeTokensFile, type TokensFile } from '../../http/security/helpers.js'

/** POST /batch under authentication: each request needs the scope its own route needs. */
describe('batch scopes, as for REST', () => {
  let tokens: TokensFile<'reader' | 'writer'>
  let server: RunningServer
  const post = async (requests: unknown[], headers: Record<string, string> = {}): Promise<Awaited<ReturnType<typeof request>>> =>
    await request(`${server.origin}/batch`, { method: 'POST', headers, json: { requests } })
  const create = { method: 'POST', url: '/v2/students', body: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } }

  beforeAll(async () => {
    tokens = await writeTokensFile({ reader: ['read'], writer: ['read', 'write'] })
    server = await startServer({ security: security({ authTokensFile: tokens.path, authFailureLimit: { max: 1000, windowMs: 60_000 } }) })
  })
  afterAll(async () => {
    await server.close()
    await tokens.remove()
  })

  it('refuses a batch without a token (401), and a write with the read scope only (403), naming the request', async () => {
    expect((await post([create])).status).toBe(401)
    const refused = await post([{ method: 'GET', url: '/v2/students/0' }, create], bearer(tokens.tokens.reader))
    expect(refused.status).toBe(403)
    expect(refused.body.errors[0].error).toBe('FORBIDDEN')
    expect(refused.body.detail).toContain('request 1 (POST /v2/students)')
    expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope')
    expect((await request(`${server.origin}/v2/students`)).status).toBe(401)
  })

  it('runs reads with the read scope and writes with the write scope', async () => {
    const written = await post([create], bearer(tokens.tokens.writer))
    expect(written.status).toBe(200)
    const id = written.body.responses[0].body.id as number
    const read = await post([{ method: 'GET', url: `/v2/students/${id}` }], bearer(tokens.tokens.reader))
    expect(read.status).toBe(200)
    expect(read.body.responses[0]).toMatchObject({ status: 200, body: { id, firstName: 'Ada' } })
  })
})
