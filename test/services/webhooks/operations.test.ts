import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, security, writeTokensFile, type TokensFile } from '../../http/security/helpers.js'
import { FAST } from './delivery.suite.js'
import { eventually, Receiver } from './receiver.js'

/** Issue 34, item 5: registrations and deletions in the audit log, attempts in /metrics. */
describe('webhooks in the audit log and /metrics', () => {
  let server: RunningServer
  let receiver: Receiver
  let tokens: TokensFile<'ops'>
  const lines: string[] = []
  beforeAll(async () => {
    receiver = await new Receiver().listen()
    tokens = await writeTokensFile({ ops: ['read', 'write', 'metrics', 'admin'] })
    server = await startServer({
      logLevel: 'info',
      webhooks: FAST,
      security: security({ authTokensFile: tokens.path, metrics: true, auditLog: true })
    }, { logStream: { write: (line) => { lines.push(line) } } })
  })
  afterAll(async () => {
    await server?.close()
    await receiver?.close()
    await tokens?.remove()
  })

  it('logs who registered and deleted which webhook, and counts delivery attempts with their latency', async () => {
    const auth = bearer(tokens.tokens.ops)
    const created = await request(`${server.origin}/webhooks`, { method: 'POST', headers: auth, json: { url: receiver.url, events: ['students.created'] } })
    expect(created.status).toBe(201)
    const { id } = created.body
    receiver.answer(500)
    expect((await request(`${server.origin}/students`, { method: 'POST', headers: auth, json: { firstName: 'A', lastName: 'B', age: 3 } })).status).toBe(201)
    await eventually(() => receiver.delivered().length === 1)
    expect((await request(`${server.origin}/webhooks/${id}`, { method: 'DELETE', headers: auth })).status).toBe(204)

    const audits = (): any[] => lines.filter((l) => l.includes('"msg":"audit"')).map((l) => JSON.parse(l).audit).filter((a) => a.service === 'webhooks')
    await expect.poll(() => audits().length).toBe(2)
    expect(audits()).toEqual([
      expect.objectContaining({ action: 'create', service: 'webhooks', id, principal: 'ops', outcome: 'success', status: 201 }),
      expect.objectContaining({ action: 'delete', service: 'webhooks', id, principal: 'ops', outcome: 'success', status: 204 })
    ])
    // The secret never goes to the log.
    expect(lines.join('\n')).not.toContain(created.body.secret)

    const metrics = (await request(`${server.origin}/metrics`, { headers: auth })).text
    expect(metrics).toMatch(/rqs_webhook_attempts_total\{outcome="delivered"\} 1/)
    expect(metrics).toMatch(/rqs_webhook_attempts_total\{outcome="retry"\} 1/)
    expect(metrics).toMatch(/rqs_webhook_attempt_duration_seconds_count 2/)
  })
})
