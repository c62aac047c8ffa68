import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/** Issue 22, item 5: values a person reads as empty are refused, with a message that names the field. */
let server: RunningServer
beforeAll(async () => { server = await startServer({}) })
afterAll(async () => { await server.close() })

const V2 = { accept: 'application/vnd.rqs.v2+json' }

describe('blank values are refused (issue 22, item 5)', () => {
  for (const [field, value] of [['firstName', '   '], ['lastName', '\t\n']] as const) {
    it(`a student whose ${field} is only white space → 400`, async () => {
      const res = await request(`${server.origin}/students`, { method: 'POST', headers: V2, json: { firstName: 'Ada', lastName: 'Lovelace', age: 36, [field]: value } })
      expect(res.status).toBe(400)
      expect(res.body.errors).toEqual([expect.objectContaining({ error: 'FIELD_INVALID', detail: `body.${field} must contain a character other than white space` })])
    })
  }

  it('an address with an empty postal code, or a name of spaces → 400; a real one is stored', async () => {
    const empty = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'Ada', city: 'London', postalCode: '' } })
    expect(empty.status).toBe(400)
    expect(empty.body.errors).toEqual([expect.objectContaining({ error: 'FIELD_TOO_SHORT', detail: expect.stringContaining('body.postalCode') })])
    const spaces = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: '  ', city: 'London', postalCode: 'W1' } })
    expect(spaces.status).toBe(400)
    expect(spaces.body.errors).toEqual([expect.objectContaining({ error: 'FIELD_INVALID', detail: 'body.name must contain a character other than white space' })])
    const fine = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: ' Ada ', city: 'London', postalCode: 'W1' } })
    expect(fine.status).toBe(201)
  })

})
