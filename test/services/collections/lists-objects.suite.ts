import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from './fixture.js'
import { connectFeed } from '../../helpers/sse.js'

/**
 * Lists of scalars, nested objects and free JSON (issue 29, items 7 and 8)
 * over HTTP, the same requests on every store (lists-objects.test.ts: memory
 * and SQLite; lists-objects-pg.test.ts: PostgreSQL).
 */
const files = declarationFiles()
export const PLACES = {
  collections: {
    places: {
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 5, uniqueItems: true },
          scores: { type: 'array', items: { type: 'integer', minimum: 0 } },
          address: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              zip: { type: 'integer' },
              geo: { type: 'object', properties: { lat: { type: 'number' }, open: { type: 'boolean' } }, required: ['lat'] }
            },
            required: ['city', 'zip']
          },
          extra: { type: 'object', additionalProperties: true }
        },
        required: ['name', 'address']
      }
    }
  }
}

const PLACES_DATA = [
  { name: 'Fjord', tags: ['water', 'cold'], scores: [3, 5], address: { zip: 150, city: 'Oslo', geo: { open: true, lat: 59.9 } }, extra: { b: 1, a: [1, { c: null }], big: 9007199254740991 } },
  { name: 'Dome', tags: ['old'], address: { city: 'Berlin', zip: 10117 } },
  { name: 'Harbour', tags: ['water', 'old'], scores: [7], address: { city: 'Oslo', zip: 151, geo: { lat: 59.8, open: false } } },
  { name: 'Square', address: { city: 'Aachen', zip: 52062 } }
]
/** As every store answers them: members in declared order, free JSON as sent. */
const STORED = [
  { id: 1, name: 'Fjord', tags: ['water', 'cold'], scores: [3, 5], address: { city: 'Oslo', zip: 150, geo: { lat: 59.9, open: true } }, extra: { b: 1, a: [1, { c: null }], big: 9007199254740991 } },
  { id: 2, name: 'Dome', tags: ['old'], address: { city: 'Berlin', zip: 10117 } },
  { id: 3, name: 'Harbour', tags: ['water', 'old'], scores: [7], address: { city: 'Oslo', zip: 151, geo: { lat: 59.8, open: false } } },
  { id: 4, name: 'Square', address: { city: 'Aachen', zip: 52062 } }
]

const ids = (body: { items: Array<{ id: number }> }): number[] => body.items.map((r) => r.id)
const pointers = (body: { errors: Array<{ pointer?: string, field?: string, detail: string }> }): string[] => body.errors.map((e) => e.detail.split(' ')[0] as string)

export function listsObjectsSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let base: string

  beforeAll(async () => {
    const store = storeOf()
    server = await startServer({ collections: fromFile(files.write('places.json', PLACES), '--collections'), ...(store === undefined ? {} : { store }) })
    base = server.origin
    for (const [i, place] of PLACES_DATA.entries()) {
      const created = await request(`${base}/places`, { method: 'POST', json: place })
      expect(created.status).toBe(201)
      expect(created.body).toEqual(STORED[i])
    }
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  it('keeps lists, nested objects (in declared order) and free JSON exactly', async () => {
    expect((await request(`${base}/places/1`)).body).toEqual(STORED[0])
    expect((await request(`${base}/places/1`)).text).toContain('"address":{"city":"Oslo","zip":150,"geo":{"lat":59.9,"open":true}}')
    expect((await request(`${base}/places/1`)).text).toContain('"extra":{"b":1,"a":[1,{"c":null}],"big":9007199254740991}')
    expect((await request(`${base}/places?sort=id`)).body.items).toEqual(STORED)
  })

  it('filters lists with has and hasAny', async () => {
    expect(ids((await request(`${base}/places?tags[has]=water`)).body)).toEqual([1, 3])
    expect(ids((await request(`${base}/places?tags[has]=old&name=Harbour`)).body)).toEqual([3])
    expect(ids((await request(`${base}/places?tags[hasAny]=cold,old`)).body)).toEqual([1, 2, 3])
    expect(ids((await request(`${base}/places?tags[has]=none`)).body)).toEqual([])
    expect(ids((await request(`${base}/places?scores[has]=5`)).body)).toEqual([1])
    expect(ids((await request(`${base}/places?scores[hasAny]=7,3`)).body)).toEqual([1, 3])
    const count = await request(`${base}/places?tags[has]=water&count=true`)
    expect(count.headers.get('x-total-count')).toBe('2')
  })

  it('filters and sorts by dotted path, with cursors', async () => {
    expect(ids((await request(`${base}/places?address.city=Oslo`)).body)).toEqual([1, 3])
    expect(ids((await request(`${base}/places?address.zip[gte]=10000`)).body)).toEqual([2, 4])
    expect(ids((await request(`${base}/places?address.geo.lat[lt]=59.85`)).body)).toEqual([3])
    expect(ids((await request(`${base}/places?address.geo.open=true`)).body)).toEqual([1])
    expect(ids((await request(`${base}/places?sort=address.city`)).body)).toEqual([4, 2, 1, 3])
    expect(ids((await request(`${base}/places?sort=-address.zip`)).body)).toEqual([4, 2, 3, 1])
    expect(ids((await request(`${base}/places?sort=address.city,-address.zip`)).body)).toEqual([4, 2, 3, 1])
    const seen: number[] = []
    let next: string | undefined = '/places?sort=address.city&limit=3'
    while (next !== undefined) {
      const page: { body: { items: Array<{ id: number }>, next?: string } } = await request(`${base}${next}`)
      seen.push(...ids(page.body))
      next = page.body.next
    }
    expect(seen).toEqual([4, 2, 1, 3])
  })

  it('answers filter= expressions and the bracket expression operators on dotted paths and lists, as the plain filters do', async () => {
    const q = (text: string): string => `${base}/places?filter=${encodeURIComponent(text)}`
    expect(ids((await request(q("address.city = 'Oslo'"))).body)).toEqual(ids((await request(`${base}/places?address.city=Oslo`)).body))
    expect(ids((await request(`${base}/places?address.city[in]=Oslo,Nowhere`)).body)).toEqual([1, 3])
    expect(ids((await request(q('address.zip >= 10000 || address.geo.lat < 59.85'))).body)).toEqual([2, 3, 4])
    expect(ids((await request(q('!(address.zip >= 10000)'))).body)).toEqual([1, 3])
    expect(ids((await request(q("tags ?= 'water'"))).body)).toEqual(ids((await request(`${base}/places?tags[has]=water`)).body))
    expect(ids((await request(q("tags ?= 'water' && address.city != 'Oslo'"))).body)).toEqual([])
    expect(ids((await request(q('scores ?= 5 || scores ?= 7'))).body)).toEqual([1, 3])
    const refusals = [
      [q("tags = 'water'"), "tags is a list: test it with '?='"],
      [q("address.city ~ 'os'"), 'a text inside an object is compared with = and !='],
      [q("name ?= 'x'"), "'?=' tests a list field"]
    ]
    for (const [url, text] of refusals) {
      const refused = await request(url as string)
      expect(refused.status).toBe(400)
      expect(refused.body.detail).toContain(text)
    }
  })

  it('refuses what lists and objects cannot do with clear 400s', async () => {
    const sortTags = await request(`${base}/places?sort=tags`)
    expect(sortTags.status).toBe(400)
    expect(sortTags.body.detail).toContain('"tags" is a list')
    const sortOptional = await request(`${base}/places?sort=address.geo.lat`)
    expect(sortOptional.status).toBe(400)
    const eqList = await request(`${base}/places?tags=water`)
    expect(eqList.status).toBe(400)
    expect(eqList.body.detail).toContain('tags[has]')
    const badItem = await request(`${base}/places?scores[has]=many`)
    expect(badItem.status).toBe(400)
    expect(JSON.stringify(badItem.body)).toContain('scores[has]')
    const unknownPath = await request(`${base}/places?address.country=NO`)
    expect(unknownPath.status).toBe(400)
    const extra = await request(`${base}/places?extra=1`)
    expect(extra.status).toBe(400)
  })

  it('validates items and nested fields with pointers naming them', async () => {
    const cases: Array<[Record<string, unknown> | string, string]> = [
      [{ name: 'X', tags: ['a', 'b', 7], address: { city: 'A', zip: 1 } }, 'body.tags.2'],
      [{ name: 'X', tags: ['a', 'a'], address: { city: 'A', zip: 1 } }, 'body.tags'],
      [{ name: 'X', tags: ['1', '2', '3', '4', '5', '6'], address: { city: 'A', zip: 1 } }, 'body.tags'],
      [{ name: 'X', scores: [-1], address: { city: 'A', zip: 1 } }, 'body.scores.0'],
      [{ name: 'X', address: { city: 5, zip: 1 } }, 'body.address.city'],
      [{ name: 'X', address: { city: 'A' } }, 'body.address.zip'],
      [{ name: 'X', address: { city: 'A', zip: 1, geo: { open: true } } }, 'body.address.geo.lat'],
      [{ name: 'X', address: { city: 'A', zip: 1 }, extra: [1] }, 'body.extra'],
      // An integer JSON parsing rounds (beyond 2^53 − 1): refused, not kept rounded.
      ['{"name":"X","address":{"city":"A","zip":1},"extra":{"n":12345678901234567890}}', 'body.extra']
    ]
    for (const [body, pointer] of cases) {
      const refused = await request(`${base}/places`, { method: 'POST', ...(typeof body === 'string' ? { body, headers: { 'content-type': 'application/json' } } : { json: body }) })
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(refused.headers.get('content-type')).toContain('application/problem+json')
      expect(pointers(refused.body), JSON.stringify(body)).toContain(pointer)
    }
    expect((await request(`${base}/places?sort=id`)).body.items).toHaveLength(4)
  })

  it('replaces with If-Match on records holding lists and objects', async () => {
    const read = await request(`${base}/places/2`)
    const etag = read.headers.get('etag') as string
    const replaced = await request(`${base}/places/2`, { method: 'PUT', headers: { 'if-match': etag }, json: { ...PLACES_DATA[1], tags: ['old', 'dome'] } })
    expect(replaced.status).toBe(200)
    expect(replaced.body.tags).toEqual(['old', 'dome'])
    expect(ids((await request(`${base}/places?tags[has]=dome`)).body)).toEqual([2])
    const restored = await request(`${base}/places/2`, { method: 'PUT', json: PLACES_DATA[1] })
    expect(restored.body).toEqual(STORED[1])
  })

  it('exports NDJSON and CSV: JSON in a list cell, objects by dotted column', async () => {
    const ndjson = await request(`${base}/places?tags[has]=old`, { headers: { accept: 'application/x-ndjson' } })
    expect(ndjson.text.trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual([STORED[1], STORED[2]])
    const csv = await request(`${base}/places?sort=id&limit=2`, { headers: { accept: 'text/csv' } })
    expect(csv.status).toBe(200)
    const [header, first] = csv.text.split('\r\n')
    expect(header).toBe('id,name,tags,scores,address.city,address.zip,address.geo.lat,address.geo.open,extra')
    expect(first).toBe('1,Fjord,"[""water"",""cold""]","[3,5]",Oslo,150,59.9,true,"{""b"":1,""a"":[1,{""c"":null}],""big"":9007199254740991}"')
  })

  it('carries lists and objects (in declared order) in the change feed', async () => {
    const feed = await connectFeed(`${base}/events?services=places`, { 'last-event-id': '0' })
    try {
      const created = await feed.waitFor(4)
      expect(created.map((e) => e.event)).toEqual(['places.created', 'places.created', 'places.created', 'places.created'])
      expect(created.map((e) => (JSON.parse(e.data) as { record: unknown }).record)).toEqual(STORED)
    } finally { feed.close() }
  })

  it('describes lists and objects in OpenAPI and GET /collections', async () => {
    const doc = await request(`${base}/openapi.json`)
    expect(doc.status).toBe(200)
    const text = JSON.stringify(doc.body)
    expect(text).toContain('"tags[has]"')
    expect(text).toContain('"address.city"')
    const listing = await request(`${base}/collections`)
    expect(listing.status).toBe(200)
    expect(JSON.stringify(listing.body)).toContain('address.city')
  })

  it('types lists and nested objects in GraphQL, free JSON as JSON', async () => {
    const introspect = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ __type(name: "Place") { fields { name type { kind name ofType { kind name ofType { kind name } } } } } }' } })
    expect(introspect.body.errors).toBeUndefined()
    const fields = introspect.body.data.__type.fields as Array<{ name: string, type: unknown }>
    expect(fields.find((f) => f.name === 'tags')?.type).toEqual({ kind: 'LIST', name: null, ofType: { kind: 'NON_NULL', name: null, ofType: { kind: 'SCALAR', name: 'String' } } })
    expect(fields.find((f) => f.name === 'address')?.type).toEqual({ kind: 'NON_NULL', name: null, ofType: { kind: 'OBJECT', name: 'PlaceAddress', ofType: null } })
    expect(fields.find((f) => f.name === 'extra')?.type).toEqual({ kind: 'SCALAR', name: 'JSON', ofType: null })
    const list = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ places(sort: [id_ASC]) { nodes { id tags address { city zip geo { lat open } } extra } } }' } })
    expect(list.body.errors).toBeUndefined()
    expect(list.body.data.places.nodes[0]).toEqual({ id: '1', tags: ['water', 'cold'], address: STORED[0]?.address, extra: STORED[0]?.extra })
    expect(list.body.data.places.nodes[1].address).toEqual({ city: 'Berlin', zip: 10117, geo: null })
    const created = await request(`${base}/graphql`, { method: 'POST', json: { query: 'mutation { createPlace(input: { name: "GraphQL", tags: ["g"], address: { city: "Bergen", zip: 5003, geo: { lat: 60.4 } } }) { record { id address { city geo { lat } } } } }' } })
    expect(created.body.errors).toBeUndefined()
    expect(created.body.data.createPlace.record.address).toEqual({ city: 'Bergen', geo: { lat: 60.4 } })
    const id = created.body.data.createPlace.record.id as string
    expect((await request(`${base}/places/${id}`)).body.address).toEqual({ city: 'Bergen', zip: 5003, geo: { lat: 60.4 } })
    const missing = await request(`${base}/graphql`, { method: 'POST', json: { query: 'mutation { createPlace(input: { name: "G", address: { city: "X" } }) { record { id } } }' } })
    expect(JSON.stringify(missing.body.errors)).toContain('body.address.zip')
    expect((await request(`${base}/places/${id}`, { method: 'DELETE' })).status).toBe(204)
    const filtered = await request(`${base}/graphql`, { method: 'POST', json: { query: '{ places(filter: { tags: { hasAny: ["cold", "old"] }, address__city: { eq: "Oslo" } }, sort: [address__zip_DESC]) { nodes { id } } }' } })
    expect(filtered.body.errors).toBeUndefined()
    expect(filtered.body.data.places.nodes).toEqual([{ id: '3' }, { id: '1' }])
    const refused = await request(`${base}/graphql`, { method: 'POST', json: { query: 'mutation { createPlace(input: { name: "G", tags: ["a", "a"], address: { city: "X", zip: 1 } }) { record { id } } }' } })
    expect(refused.body.errors?.length).toBeGreaterThan(0)
  })
}

/** A restart compares a list's items and an object's fields with the stored shape: a new optional nested field starts, a changed shape is refused naming it. */
export async function shapeChangesAtStart (store: Config['store']): Promise<void> {
  const places = (change: (properties: Record<string, any>) => void): string => {
    const declaration = structuredClone(PLACES) as { collections: { places: { schema: { properties: Record<string, any> } } } }
    change(declaration.collections.places.schema.properties)
    return files.write(`places-${Math.random().toString(36).slice(2)}.json`, declaration)
  }
  const server = await startServer({ collections: fromFile(places(() => {}), '--collections'), store })
  expect((await request(`${server.origin}/places`, { method: 'POST', json: PLACES_DATA[0] })).status).toBe(201)
  await server.close()
  await expect(startServer({ collections: fromFile(places((p) => { p.tags.items = { type: 'integer' } }), '--collections'), store })).rejects.toThrow(/tags: items string → integer/)
  await expect(startServer({ collections: fromFile(places((p) => { delete p.address.properties.zip; p.address.required = ['city'] }), '--collections'), store })).rejects.toThrow(/address\.zip: removed/)
  await expect(startServer({ collections: fromFile(places((p) => { p.address.properties.geo.required = ['lat', 'open'] }), '--collections'), store })).rejects.toThrow(/address\.geo\.open: optional → required/)
  const grown = await startServer({ collections: fromFile(places((p) => { p.address.properties.street = { type: 'string' } }), '--collections'), store })
  expect((await request(`${grown.origin}/places/1`)).body).toEqual(STORED[0])
  expect((await request(`${grown.origin}/places?address.street=x`)).body.items).toEqual([])
  await grown.close()
  // The grown shape is registered: leaving the new field out again is a change.
  await expect(startServer({ collections: fromFile(places(() => {}), '--collections'), store })).rejects.toThrow(/address\.street: removed/)
}
