import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConfigOverrides } from '../../../src/options.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { FAST, register } from './delivery.suite.js'
import { eventually, Receiver, validSignature } from './receiver.js'

const student = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }

/** The webhooks API over HTTP on one store (api.test.ts: memory and SQLite; api-pg.test.ts: PostgreSQL). */
export function webhooksApi (name: string, store: () => ConfigOverrides | Promise<ConfigOverrides>): void {
  describe(`the webhooks API on the ${name} store`, () => {
    let server: RunningServer
    let receiver: Receiver
    beforeAll(async () => {
      receiver = await new Receiver().listen()
      server = await startServer({ ...await store(), webhooks: { ...FAST, retryPeriodMs: 400 } })
    })
    afterAll(async () => {
      await server?.close()
      await receiver?.close()
    })

    it('registers, lists without secrets, changes and deletes a webhook', async () => {
      const created = await request(`${server.origin}/webhooks`, { method: 'POST', json: { url: receiver.url, events: ['students.*', 'students.created'], description: 'd' } })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ url: receiver.url, events: ['students.*', 'students.created'], description: 'd', filter: null, enabled: true, disabledReason: null })
      expect(created.body.id).toMatch(/^wh_[0-9a-f]{16}$/)
      expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(created.headers.get('location')).toBe(`/webhooks/${created.body.id}`)
      const { id } = created.body

      const list = await request(`${server.origin}/webhooks`)
      expect(list.body.webhooks.map((w: { id: string }) => w.id)).toContain(id)
      expect(list.text).not.toContain('whsec_')
      expect((await request(`${server.origin}/webhooks/${id}`)).body).not.toHaveProperty('secret')

      const patched = await request(`${server.origin}/webhooks/${id}`, { method: 'PATCH', json: { events: ['addresses.deleted'], description: 'e' } })
      expect(patched.status).toBe(200)
      expect(patched.body).toMatchObject({ id, events: ['addresses.deleted'], description: 'e' })

      expect((await request(`${server.origin}/webhooks/${id}`, { method: 'DELETE' })).status).toBe(204)
      const gone = await request(`${server.origin}/webhooks/${id}`)
      expect(gone.status).toBe(404)
      expect(gone.body.type).toBe('/errors/WEBHOOK_NOT_FOUND')
      expect((await request(`${server.origin}/webhooks/${id}`, { method: 'DELETE' })).status).toBe(404)
      expect((await request(`${server.origin}/webhooks/nope/deliveries`)).status).toBe(404)
    })

    it('refuses bad registrations with 400 and the field, storing nothing', async () => {
      const before = (await request(`${server.origin}/webhooks`)).body.webhooks.length
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ url: receiver.url, events: ['books.*'] }, 'WEBHOOK_EVENTS_INVALID'],
        [{ url: receiver.url, events: ['students.updated'] }, 'WEBHOOK_EVENTS_INVALID'],
        [{ url: receiver.url, events: ['students'] }, 'WEBHOOK_EVENTS_INVALID'],
        [{ url: receiver.url, events: ['*'], filter: 'age > 3' }, 'WEBHOOK_FILTER_INVALID'],
        [{ url: receiver.url, events: ['students.*', 'addresses.*'], filter: 'age > 3' }, 'WEBHOOK_FILTER_INVALID'],
        [{ url: receiver.url, events: ['*.created'], filter: 'age > 3' }, 'WEBHOOK_FILTER_INVALID'],
        [{ url: receiver.url, events: ['students.*'], filter: 'age >' }, 'WEBHOOK_FILTER_INVALID'],
        [{ url: receiver.url, events: ['students.*'], filter: 'agee > 3' }, 'WEBHOOK_FILTER_INVALID'],
        [{ url: 'ftp://example.com/x', events: ['*'] }, 'WEBHOOK_URL_REFUSED'],
        [{ url: 'not a url', events: ['*'] }, 'WEBHOOK_URL_REFUSED'],
        [{ url: 'https://user:pw@example.com/', events: ['*'] }, 'WEBHOOK_URL_REFUSED'],
        [{ url: receiver.url, events: [] }, 'VALIDATION_FAILED'],
        [{ events: ['*'] }, 'VALIDATION_FAILED']
      ]
      for (const [json, code] of cases) {
        const res = await request(`${server.origin}/webhooks`, { method: 'POST', json, headers: { 'accept-language': 'de' } })
        expect(res.status, JSON.stringify(json)).toBe(400)
        expect(res.body.type, res.text).toBe(`/errors/${code}`)
      }
      expect((await request(`${server.origin}/webhooks`)).body.webhooks).toHaveLength(before)
      // An empty filter is no filter.
      const empty = await request(`${server.origin}/webhooks`, { method: 'POST', json: { url: receiver.url, events: ['*'], filter: '' } })
      expect(empty.status).toBe(201)
      expect(empty.body.filter).toBeNull()
      await request(`${server.origin}/webhooks/${empty.body.id}`, { method: 'DELETE' })
    })

    it('takes a filter on the one collection its events name, checked as /events checks filter=, in English and German', async () => {
      const created = await request(`${server.origin}/webhooks`, { method: 'POST', json: { url: receiver.url, events: ['students.created', 'students.deleted'], filter: 'age >= 30 && lastName ~ \'love\'' } })
      expect(created.status, created.text).toBe(201)
      expect(created.body).toMatchObject({ events: ['students.created', 'students.deleted'], filter: 'age >= 30 && lastName ~ \'love\'' })
      const { id } = created.body
      expect((await request(`${server.origin}/webhooks/${id}`)).body.filter).toBe('age >= 30 && lastName ~ \'love\'')
      // The position of a mistake, as a list's filter= says it.
      const bad = await request(`${server.origin}/webhooks/${id}`, { method: 'PATCH', json: { filter: 'age >= ' } })
      expect(bad.status).toBe(400)
      expect(bad.body.type).toBe('/errors/WEBHOOK_FILTER_INVALID')
      expect(bad.body.errors[0].detail).toMatch(/^filter: .* at \d+/)
      // Events that name more than one collection leave the filter nothing to apply to: refused, in German too.
      const wide = await request(`${server.origin}/webhooks/${id}`, { method: 'PATCH', json: { events: ['*'] }, headers: { 'accept-language': 'de' } })
      expect(wide.status).toBe(400)
      expect(wide.body).toMatchObject({ type: '/errors/WEBHOOK_FILTER_INVALID', title: 'Ungültiger Webhook-Filter' })
      expect(wide.body.errors[0].detail).toContain('exactly one')
      const other = await request(`${server.origin}/webhooks/${id}`, { method: 'PATCH', json: { events: ['addresses.*'] } })
      expect(other.status).toBe(400)
      expect(other.body.errors[0].detail).toContain('addresses')
      expect((await request(`${server.origin}/webhooks/${id}`)).body).toMatchObject({ events: ['students.created', 'students.deleted'], filter: 'age >= 30 && lastName ~ \'love\'' })
      // With the filter removed, any events go; a filter on addresses' fields then fits addresses.
      const cleared = await request(`${server.origin}/webhooks/${id}`, { method: 'PATCH', json: { events: ['*'], filter: null } })
      expect(cleared.status).toBe(200)
      expect(cleared.body).toMatchObject({ events: ['*'], filter: null })
      const addresses = await request(`${server.origin}/webhooks/${id}`, { method: 'PATCH', json: { events: ['addresses.*'], filter: 'city = \'Bonn\'' } })
      expect(addresses.status, addresses.text).toBe(200)
      expect(addresses.body.filter).toBe('city = \'Bonn\'')
      await request(`${server.origin}/webhooks/${id}`, { method: 'DELETE' })
    })

    it('pings: a signed webhook.ping, answered with what the receiver did and listed among the deliveries', async () => {
      const { id, secret } = await register(server.origin, { url: receiver.url, events: ['addresses.deleted'] })
      const seen = receiver.received.length
      const ping = await request(`${server.origin}/webhooks/${id}/ping`, { method: 'POST' })
      expect(ping.status).toBe(200)
      expect(ping.body).toMatchObject({ event: 'webhook.ping', state: 'delivered', status: 200, attempts: 1 })
      const got = receiver.received[seen]
      expect(got).toBeDefined()
      expect(JSON.parse(got?.body ?? '')).toMatchObject({ type: 'webhook.ping', data: { webhook: id } })
      expect(validSignature(secret, got!)).toBe(true)
      expect((await request(`${server.origin}/webhooks/${id}/deliveries`)).body.deliveries[0]).toMatchObject({ id: ping.body.id, state: 'delivered' })
      await request(`${server.origin}/webhooks/${id}`, { method: 'DELETE' })
    })

    it('after rotation signs with both secrets during the grace period', async () => {
      const { id, secret: old } = await register(server.origin, { url: receiver.url, events: ['students.created'] })
      const rotated = await request(`${server.origin}/webhooks/${id}/rotate-secret`, { method: 'POST' })
      expect(rotated.status).toBe(200)
      expect(rotated.body.secret).not.toBe(old)
      expect(Date.parse(rotated.body.previousSecretValidUntil)).toBeGreaterThan(Date.now())
      const seen = receiver.received.length
      expect((await request(`${server.origin}/students`, { method: 'POST', json: student })).status).toBe(201)
      await eventually(() => receiver.received.length > seen)
      const got = receiver.received[seen]!
      expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2)
      expect(validSignature(old, got)).toBe(true)
      expect(validSignature(rotated.body.secret, got)).toBe(true)
      await request(`${server.origin}/webhooks/${id}`, { method: 'DELETE' })
    })

    it('disables a webhook whose delivery fails for the whole retry period, says why, and resumes after PATCH enabled and a retry', async () => {
      const { id } = await register(server.origin, { url: receiver.url, events: ['students.deleted'] })
      receiver.answer(...Array<number>(50).fill(503))
      const created = await request(`${server.origin}/students`, { method: 'POST', json: student })
      expect((await request(`${server.origin}/students/${created.body.body.id}`, { method: 'DELETE' })).status).toBe(200)
      await eventually(async () => (await request(`${server.origin}/webhooks/${id}`)).body.enabled === false)
      const hook = (await request(`${server.origin}/webhooks/${id}`)).body
      expect(hook.disabledReason).toMatch(/failed for .* attempts; last: 503/)
      const [failed] = (await request(`${server.origin}/webhooks/${id}/deliveries`)).body.deliveries
      expect(failed).toMatchObject({ event: 'students.deleted', state: 'failed', status: 503, nextAttemptAt: null })
      expect(failed.attempts).toBeGreaterThanOrEqual(1)

      receiver.answerNormally()
      const enabled = await request(`${server.origin}/webhooks/${id}`, { method: 'PATCH', json: { enabled: true } })
      expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null })
      expect((await request(`${server.origin}/webhooks/${id}/deliveries/nope/retry`, { method: 'POST' })).status).toBe(404)
      expect((await request(`${server.origin}/webhooks/${id}/deliveries/${failed.id}/retry`, { method: 'POST' })).status).toBe(202)
      await eventually(async () => (await request(`${server.origin}/webhooks/${id}/deliveries`)).body.deliveries[0].state === 'delivered')
      await request(`${server.origin}/webhooks/${id}`, { method: 'DELETE' })
    })
  })
}
