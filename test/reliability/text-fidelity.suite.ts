import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import type { StoreKind } from '../stores/harness.js'

/**
 * Issue 10, defect 4: text is stored exactly as acknowledged, or refused up
 * front. A lone surrogate was echoed by the 201 and read back as U+FFFD (a
 * different ETag, so If-Match with the 201's ETag failed); U+0000 was kept by
 * memory and SQLite and refused by PostgreSQL. Now both are a 400 in every
 * store and version, and every other text comes back byte for byte.
 */
const V2 = 'application/vnd.rqs.v2+json'

/** Valid Unicode that a careless encoder, collation or trim could change. */
export const TRICKY = [
  'Zoë Ωmega', 'e\u0301 combining', '😀 astral 𝕏', '\ufeffBOM', 'non-character \uffff \ufffe', 'replacement \ufffd',
  'bidi \u202e override', 'tab\tnew\nline\r', 'control \u0001\u001f\u007f', '"quoted" \\ back\\slash', ' padded ',
  'line\u2028para\u2029', '中文テキスト', 'a'.repeat(199) + '😀'
]
/** What no store can keep exactly: refused with 400 everywhere. */
export const UNSTORABLE = ['A\ud800', '\udc00B', 'x\ud83dy', 'a\u0000b', '\u0000', 'ok\ud83d\ude00then\udfff']

/** Registers the suite for each kind: text-fidelity.slow.test.ts (memory, SQLite) and text-fidelity-pg.test.ts (PostgreSQL) call it. */
export function textFidelitySuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`text fidelity on the ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let server: RunningServer
    beforeAll(async () => {
      await kind.setup()
      server = await startServer({}, { stores: await kind.fresh() })
    })
    afterAll(async () => {
      await server?.close()
      await kind.teardown()
    })

    it('what a 201 echoes is byte for byte what a later read returns, with the same ETag, and If-Match with it works', async () => {
      for (const text of TRICKY) {
        const student = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: text, lastName: text.slice(0, 5) || 'x', age: 7 }, headers: { accept: V2, 'content-type': V2 } })
        expect(student.status, JSON.stringify(text)).toBe(201)
        expect(student.body.firstName).toBe(text)
        const read = await request(`${server.origin}${student.headers.get('location') as string}`, { headers: { accept: V2 } })
        expect(read.text).toBe(student.text)
        expect(read.headers.get('etag')).toBe(student.headers.get('etag'))
        const update = await request(`${server.origin}${student.headers.get('location') as string}`, { method: 'PUT', json: { firstName: text, lastName: 'changed', age: 8 }, headers: { accept: V2, 'content-type': V2, 'if-match': student.headers.get('etag') as string } })
        expect(update.status, JSON.stringify(text)).toBe(200)

        const address = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: text, city: text, postalCode: text.slice(0, 32) } })
        expect(address.status, JSON.stringify(text)).toBe(201)
        const again = await request(`${server.origin}${address.headers.get('location') as string}`)
        expect(again.text).toBe(address.text)
        expect(again.headers.get('etag')).toBe(address.headers.get('etag'))
        const put = await request(`${server.origin}${address.headers.get('location') as string}`, { method: 'PUT', json: { city: 'Kiel', postalCode: '24103' }, headers: { 'if-match': address.headers.get('etag') as string } })
        expect(put.status, JSON.stringify(text)).toBe(200)
      }
      // v1 reads the same records: its envelope carries the same text.
      const list = await request(`${server.origin}/students`)
      expect(list.body.body.map((s: { firstName: string }) => s.firstName)).toEqual(TRICKY)
    })

    it('U+0000 and unpaired surrogates are a 400 in every version and service, and nothing is stored', async () => {
      const studentsBefore = (await request(`${server.origin}/students`)).text
      const addressesBefore = (await request(`${server.origin}/addresses?limit=500`)).text
      for (const text of UNSTORABLE) {
        const v1 = await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'ok', lastName: text, age: 1 } })
        expect(v1.status).toBe(400)
        expect(v1.body).toEqual({ isSuccessful: false, body: 'Invalid student data: lastName must not contain U+0000 or an unpaired surrogate (U+D800-U+DFFF)' })
        const v1put = await request(`${server.origin}/students`, { method: 'PUT', json: { id: 0, firstName: text, lastName: 'ok', age: 1 } })
        expect(v1put.status).toBe(400)
        const v2 = await request(`${server.origin}/v2/students`, { method: 'POST', json: { firstName: text, lastName: 'ok', age: 1 } })
        expect(v2.status).toBe(400)
        expect(v2.body.errors).toEqual([expect.objectContaining({ error: 'FIELD_INVALID_TEXT', message: 'firstName contains characters that cannot be stored.' })])
        for (const field of ['name', 'city', 'postalCode']) {
          const body = { name: 'n', city: 'c', postalCode: 'p', [field]: text }
          const post = await request(`${server.origin}/addresses`, { method: 'POST', json: body })
          expect(post.status, field).toBe(400)
          expect(post.body.errors[0].error).toBe('FIELD_INVALID_TEXT')
          const put = await request(`${server.origin}/addresses/77`, { method: 'PUT', json: body })
          expect(put.status, field).toBe(400)
        }
      }
      // A URL cannot carry a lone surrogate (percent-decoding gives U+FFFD), but it can carry U+0000.
      expect((await request(`${server.origin}/addresses?city=a%00b`)).body.errors[0].error).toBe('FIELD_INVALID_TEXT')
      expect((await request(`${server.origin}/students`)).text).toBe(studentsBefore)
      expect((await request(`${server.origin}/addresses?limit=500`)).text).toBe(addressesBefore)
    })
  })
}
