import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import { entryCodes, expectProblem } from '../../../services/addresses/helpers.js'
import { memoryStores, type Stores } from '../../../helpers/built-ins.js'

/** Querying the address book: every field filters and sorts; pages of 50 by default; problems for the rest. */
let server: RunningServer
let stores: Stores
let base: string

beforeEach(async () => {
  stores = memoryStores()
  server = await startServer({}, { stores })
  base = `${server.origin}/addresses`
})
afterEach(async () => { await server.close() })

async function seed (): Promise<void> {
  const rows = [['Ada', 'Berlin', '10115'], ['Alan', 'Hamburg', '20095'], ['Grace', 'berlin', '10117'], ['Edsger', 'Kiel', '24103'], ['Barbara', 'Bonn', '53111']]
  for (const [name, city, postalCode] of rows) await request(base, { method: 'POST', json: { name, city, postalCode } })
  await request(`${base}/9223372036854775807`, { method: 'PUT', json: { name: 'Max', city: 'Berlin', postalCode: '10999' } })
}

const names = (res: { body: any }): string[] => res.body.items.map((a: any) => a.name)

describe('GET /addresses with a query', () => {
  it('filters by any field with any operator, searches, sorts and counts', async () => {
    await seed()
    expect(names(await request(`${base}?city=Berlin`))).toEqual(['Ada', 'Max'])
    expect(names(await request(`${base}?city[contains]=BERLIN`))).toEqual(['Ada', 'Grace', 'Max'])
    expect(names(await request(`${base}?postalCode[gte]=10117&postalCode[lt]=30000&sort=postalCode`))).toEqual(['Grace', 'Max', 'Alan', 'Edsger'])
    expect(names(await request(`${base}?name[ne]=Ada&sort=-name&limit=2`))).toEqual(['Max', 'Grace'])
    expect(names(await request(`${base}?q=ar`))).toEqual(['Barbara'])
    const counted = await request(`${base}?city[contains]=e&count=true&limit=1`)
    expect(counted.headers.get('x-total-count')).toBe('4')
    expect(counted.body.next).toMatch(/^\/addresses\?limit=1&cursor=[A-Za-z0-9_-]+&city%5Bcontains%5D=e&count=true$/)
  })

  it('compares 64-bit ids exactly, beyond 2^53', async () => {
    await seed()
    await request(`${base}/9223372036854775806`, { method: 'PUT', json: { name: 'Max-1', city: 'Kiel', postalCode: '1' } })
    const res = await request(`${base}?id[gt]=9223372036854775806`)
    expect(res.text).toBe('{"items":[{"id":9223372036854775807,"name":"Max","city":"Berlin","postalCode":"10999"}]}')
    expect(names(await request(`${base}?id=9223372036854775806`))).toEqual(['Max-1'])
    expect(names(await request(`${base}?sort=-id&limit=2`))).toEqual(['Max', 'Max-1'])
    // Paging sorted by id descending crosses 2^53 without rounding.
    const first = await request(`${base}?sort=-id&limit=1`)
    expect(names(await request(`${server.origin}${first.body.next as string}`))).toEqual(['Max-1'])
  })

  it.each([
    ['?town=Kiel', 'INVALID_QUERY', ['INVALID_QUERY']],
    ['?sort=zip', 'INVALID_QUERY', ['INVALID_QUERY']],
    ['?city[regex]=x&foo=1', 'INVALID_QUERY', ['INVALID_QUERY', 'INVALID_QUERY']],
    ['?id[contains]=1', 'INVALID_QUERY', ['INVALID_QUERY']],
    ['?id[gt]=0', 'VALIDATION_FAILED', ['FIELD_INVALID']],
    ['?id[gt]=9223372036854775808', 'VALIDATION_FAILED', ['FIELD_OUT_OF_RANGE']],
    [`?postalCode=${'9'.repeat(33)}`, 'VALIDATION_FAILED', ['FIELD_TOO_LONG']],
    ['?count=1', 'VALIDATION_FAILED', ['FIELD_TYPE']]
  ])('answers %s with a 400 problem %s', async (query, code, entries) => {
    expect(entryCodes(expectProblem(await request(`${base}${query}`), 400, code))).toEqual(entries)
  })

  it('never skips or repeats an address that stayed, while others are created and deleted between pages', async () => {
    for (let i = 0; i < 40; i++) await stores.addresses.create({ name: `N${(i * 13) % 40}`, city: i % 2 === 0 ? 'Berlin' : 'Kiel', postalCode: String(i % 5) })
    const stayed = (await stores.addresses.query({ where: [], sort: [] })).filter((a) => a.id % 4n !== 0n)
    for (const query of ['?limit=6&sort=name', '?limit=4&sort=-postalCode,name&city=Berlin']) {
      const seen: bigint[] = []
      let url: string | undefined = `${base}${query}`
      let turn = 0
      while (url !== undefined) {
        const res = await request(url)
        seen.push(...res.body.items.map((a: any) => BigInt(a.id)))
        // Between pages: a new record that sorts first, one that sorts last, and a delete.
        await stores.addresses.create({ name: 'A-new', city: 'Berlin', postalCode: '9' })
        await stores.addresses.create({ name: 'Z-new', city: 'Berlin', postalCode: '0' })
        await stores.addresses.delete(BigInt(4 * ++turn))
        url = res.body.next === undefined ? undefined : `${server.origin}${res.body.next as string}`
      }
      for (const a of stayed.filter((a) => !query.includes('city=Berlin') || a.city === 'Berlin')) {
        expect(seen.filter((id) => id === a.id), `${query}: ${a.id}`).toHaveLength(1)
      }
    }
  })
})
