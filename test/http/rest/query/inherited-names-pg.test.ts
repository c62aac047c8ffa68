import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import { storeKinds } from '../../../stores/harness.js'
import { expectProblem } from '../../../services/addresses/helpers.js'
import type { Stores } from '../../../helpers/built-ins.js'

/**
 * Issue 19, item 2: `?constructor=1`, `?toString=1`, `?valueOf[gt]=1` were
 * 500 on every store (and SQL got `function Object() { [native code] }` as a
 * column). Every name an object inherits is an unknown parameter, field,
 * operator or sort key: the usual 400 INVALID_QUERY listing what is accepted.
 */
const INHERITED = [...Object.getOwnPropertyNames(Object.prototype), 'prototype']
const ACCEPTED = 'Accepted: limit, cursor, sort, q, count, and a filter per field'

/** Every place a query names a field or an operator, with `name` there. */
function queries (name: string, field: string): string[] {
  const n = encodeURIComponent(name)
  return [`?${n}=1`, `?${n}[gt]=1`, `?${field}[${n}]=1`, `?sort=${n}`, `?sort=-${n}`, `?${field}=a&${n}[ne]=b&limit=2`]
}

for (const kind of storeKinds(['memory', 'sqlite', 'postgres'])) { // every store: this file is in the postgres lane
  describe.skipIf(kind.skip !== undefined)(`inherited property names in list queries, ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    let server: RunningServer
    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => {
      stores = await kind.fresh()
      server = await startServer({}, { stores })
      await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
      await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'Ada', city: 'Berlin', postalCode: '10115' } })
    })
    afterEach(async () => {
      await server.close()
      await stores.close()
    })

    it('answers 400 INVALID_QUERY in each service\'s shape, listing what is accepted, for every one', async () => {
      for (const name of INHERITED) {
        for (const query of queries(name, 'lastName')) {
          const v1 = await request(`${server.origin}/students${query}`)
          expect(v1.status, `v1 ${query}: ${v1.text}`).toBe(400)
          expect(v1.body).toEqual({ isSuccessful: false, body: expect.stringContaining(ACCEPTED) })
          const v2 = expectProblem(await request(`${server.origin}/v2/students${query}`), 400, 'INVALID_QUERY')
          expect(v2.detail).toContain(ACCEPTED)
          const ndjson = await request(`${server.origin}/students${query}`, { headers: { accept: 'application/x-ndjson' } })
          expect(ndjson.status, `ndjson ${query}`).toBe(400)
        }
        for (const query of queries(name, 'city')) {
          const problem = expectProblem(await request(`${server.origin}/addresses${query}`), 400, 'INVALID_QUERY')
          expect(problem.detail).toContain(ACCEPTED)
        }
      }
      // Nothing broke: the lists still answer.
      expect((await request(`${server.origin}/students?lastName=Lovelace`)).body.body).toHaveLength(1)
      expect((await request(`${server.origin}/addresses?city=Berlin`)).body.items).toHaveLength(1)
    })
  })
}
