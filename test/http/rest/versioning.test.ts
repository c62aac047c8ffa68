import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

const V1 = 'application/vnd.rqs.v1+json'
const V2 = 'application/vnd.rqs.v2+json'
const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
const home = { name: 'Home', city: 'Berlin', postalCode: '10115' }

let server: RunningServer
let o: string

beforeAll(async () => {
  server = await startServer()
  o = server.origin
  await request(`${o}/students`, { method: 'POST', json: ada })
  await request(`${o}/addresses`, { method: 'POST', json: home })
})
afterAll(async () => { await server.close() })

/** The service URLs, by service, for the header approach and for each URI version. */
const services = [
  { name: 'students', plain: '/students/0', uri: (v: number) => `/v${v}/students/0` },
  { name: 'addresses', plain: '/addresses/1', uri: (v: number) => `/v${v}/addresses/1` }
]

describe('media type versioning (Accept)', () => {
  for (const s of services) {
    describe(s.name, () => {
      it('no Accept, */* and application/json get v1 as application/json, with Vary: Accept', async () => {
        for (const accept of [undefined, '*/*', 'application/json', 'text/html,application/xhtml+xml,*/*;q=0.8']) {
          const res = await request(`${o}${s.plain}`, { headers: accept === undefined ? {} : { accept } })
          expect(res.status, String(accept)).toBe(200)
          expect(res.headers.get('content-type')).toMatch(/^application\/json/)
          expect(res.headers.get('vary')).toMatch(/\bAccept\b/)
        }
      })

      for (const [type, version] of [[V1, 1], [V2, 2]] as const) {
        it(`Accept: ${type} answers with that Content-Type`, async () => {
          const res = await request(`${o}${s.plain}`, { headers: { accept: type } })
          expect(res.status).toBe(200)
          expect(res.headers.get('content-type')?.split(';')[0]).toBe(type)
          expect(res.headers.get('vary')).toMatch(/\bAccept\b/)
          if (s.name === 'students') {
            // v1 is the envelope; v2 the plain record.
            if (version === 1) expect(res.body).toEqual({ isSuccessful: true, body: { id: 0, ...ada } })
            else expect(res.body).toEqual({ id: 0, ...ada })
          } else {
            expect(res.body).toEqual({ id: 1, ...home })
          }
        })
      }

      it('honours q-values and the order of several types', async () => {
        const cases: Array<[string, string]> = [
          [`${V2};q=0.5, ${V1}`, V1],
          [`${V1};q=0.4, ${V2};q=0.9`, V2],
          [`application/json;q=0.1, ${V2}`, V2],
          [`${V2}, application/json;q=0.9`, V2],
          [`application/vnd.rqs.v3+json, ${V2};q=0.2`, V2],
          ['application/*', 'application/json']
        ]
        for (const [accept, expected] of cases) {
          const res = await request(`${o}${s.plain}`, { headers: { accept } })
          expect(res.status, accept).toBe(200)
          expect(res.headers.get('content-type')?.split(';')[0], accept).toBe(expected)
        }
      })

      it('a version we do not serve is 406, a problem listing the available media types', async () => {
        for (const accept of ['application/vnd.rqs.v3+json', 'application/xml', 'application/vnd.other.v1+json', 'text/html']) {
          const res = await request(`${o}${s.plain}`, { headers: { accept } })
          expect(res.status, accept).toBe(406)
          expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
          expect(res.body.errors[0].error).toBe('NOT_ACCEPTABLE')
          expect(res.body.detail).toContain(V1)
          expect(res.body.detail).toContain(V2)
          expect(res.body.detail).toContain('application/json')
        }
      })
    })
  }
})

describe('URI versioning (/v1, /v2)', () => {
  for (const s of services) {
    it(`${s.name}: /v1 and /v2 answer byte for byte what the Accept header approach answers`, async () => {
      for (const [v, type] of [[1, V1], [2, V2]] as const) {
        const byUri = await request(`${o}${s.uri(v)}`)
        const byHeader = await request(`${o}${s.plain}`, { headers: { accept: type } })
        expect(byUri.status).toBe(200)
        expect(byUri.text).toBe(byHeader.text)
        expect(byUri.headers.get('vary')).toMatch(/\bAccept\b/)
      }
    })

    it(`${s.name}: an Accept that disagrees with the URI version is 406`, async () => {
      const res = await request(`${o}${s.uri(1)}`, { headers: { accept: V2 } })
      expect(res.status).toBe(406)
      const ok = await request(`${o}${s.uri(2)}`, { headers: { accept: V2 } })
      expect(ok.status).toBe(200)
      expect(ok.headers.get('content-type')?.split(';')[0]).toBe(V2)
    })
  }

  it('errors agree too: a missing student is the v1 envelope under /v1 and a problem under /v2', async () => {
    const v1 = await request(`${o}/v1/students/99`)
    expect(v1.status).toBe(404)
    expect(v1.body).toEqual({ isSuccessful: false, body: 'Student with id 99 was not found' })
    const v2 = await request(`${o}/v2/students/99`)
    expect(v2.status).toBe(404)
    expect(v2.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(v2.body.errors[0].error).toBe('STUDENT_NOT_FOUND')
    const header = await request(`${o}/students/99`, { headers: { accept: V2 } })
    expect(header.body.errors[0].error).toBe('STUDENT_NOT_FOUND')
  })
})

describe('requests rejected before routing speak the shape of the service they were for', () => {
  it('a malformed URL is a 400 envelope under /students, a problem under /v2/students and elsewhere', async () => {
    const v1 = await request(`${o}/students/%E0%A4%A`)
    expect(v1.status).toBe(400)
    expect(v1.body.isSuccessful).toBe(false)
    const v2 = await request(`${o}/v2/students/%E0%A4%A`)
    expect(v2.status).toBe(400)
    expect(v2.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    const other = await request(`${o}/addresses/%E0%A4%A`)
    expect(other.status).toBe(400)
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })
})

describe('one set of records behind every version', () => {
  it('a student created through v1 is read through v2, and one created through v2 through v1', async () => {
    const viaV1 = await request(`${o}/v1/students`, { method: 'POST', json: { firstName: 'Alan', lastName: 'Turing', age: 41 } })
    const id1 = viaV1.body.body.id
    const readV2 = await request(`${o}/students/${id1}`, { headers: { accept: V2 } })
    expect(readV2.body).toEqual({ id: id1, firstName: 'Alan', lastName: 'Turing', age: 41 })

    const viaV2 = await request(`${o}/students`, { method: 'POST', headers: { accept: V2 }, json: { firstName: 'Grace', lastName: 'Hopper', age: 85 } })
    expect(viaV2.status).toBe(201)
    const id2 = viaV2.body.id
    // The same id rule: ids follow the count whichever version created the record.
    expect(id2).toBe(id1 + 1)
    const readV1 = await request(`${o}/v1/students/${id2}`)
    expect(readV1.body).toEqual({ isSuccessful: true, body: { id: id2, firstName: 'Grace', lastName: 'Hopper', age: 85 } })
  })

  it('accepts request bodies sent with a versioned Content-Type', async () => {
    for (const type of [V1, V2, `${V2}; charset=utf-8`]) {
      const student = await request(`${o}/students`, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify(ada) })
      expect(student.status, type).toBe(201)
      const address = await request(`${o}/addresses`, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify(home) })
      expect(address.status, type).toBe(201)
    }
  })
})

describe('switching the approaches off', () => {
  it('--no-media-type-versioning: plain JSON only (v1); vendor types are 406', async () => {
    const srv = await startServer({ versioning: { mediaType: false } })
    try {
      expect((await request(`${srv.origin}/students`)).status).toBe(200)
      expect((await request(`${srv.origin}/students`, { headers: { accept: V2 } })).status).toBe(406)
      expect((await request(`${srv.origin}/addresses`, { headers: { accept: V1 } })).status).toBe(406)
      // URI versioning still works, answering plain JSON.
      const v2 = await request(`${srv.origin}/v2/students`)
      expect(v2.status).toBe(200)
      expect(v2.body).toEqual([])
    } finally { await srv.close() }
  })

  it('--no-uri-versioning: no /v1 or /v2 paths', async () => {
    const srv = await startServer({ versioning: { uri: false } })
    try {
      expect((await request(`${srv.origin}/v2/students`)).status).toBe(404)
      expect((await request(`${srv.origin}/v1/addresses`)).status).toBe(404)
      expect((await request(`${srv.origin}/students`, { headers: { accept: V2 } })).status).toBe(200)
    } finally { await srv.close() }
  })

  it('--vendor renames the media types', async () => {
    const srv = await startServer({ versioning: { vendor: 'acme' } })
    try {
      const res = await request(`${srv.origin}/students`, { headers: { accept: 'application/vnd.acme.v2+json' } })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')?.split(';')[0]).toBe('application/vnd.acme.v2+json')
      expect((await request(`${srv.origin}/students`, { headers: { accept: V2 } })).status).toBe(406)
    } finally { await srv.close() }
  })
})

describe('deprecation signalling', () => {
  it('no Deprecation, Sunset or successor Link unless configured', async () => {
    for (const url of ['/students', '/v1/students', '/addresses/1', '/v2/students']) {
      const res = await request(`${o}${url}`)
      expect(res.headers.get('deprecation'), url).toBeNull()
      expect(res.headers.get('sunset'), url).toBeNull()
    }
  })

  it('a deprecated v1 carries Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to its successor; v2 does not', async () => {
    const srv = await startServer({ versioning: { deprecated: [1], deprecatedSince: new Date('2026-12-01T00:00:00Z'), sunset: new Date('2027-06-30T00:00:00Z') } })
    try {
      const plain = await request(`${srv.origin}/students`)
      expect(plain.headers.get('deprecation')).toBe(`@${Date.parse('2026-12-01T00:00:00Z') / 1000}`)
      expect(plain.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT')
      expect(plain.headers.get('link')).toContain('rel="deprecation"')
      expect(plain.headers.get('link')).toContain(`</students>; rel="successor-version"; type="${V2}"`)

      const uri = await request(`${srv.origin}/v1/addresses`)
      expect(uri.headers.get('deprecation')).not.toBeNull()
      expect(uri.headers.get('link')).toContain('</v2/addresses>; rel="successor-version"')

      for (const res of [await request(`${srv.origin}/students`, { headers: { accept: V2 } }), await request(`${srv.origin}/v2/students`)]) {
        expect(res.status).toBe(200)
        expect(res.headers.get('deprecation')).toBeNull()
        expect(res.headers.get('sunset')).toBeNull()
      }
    } finally { await srv.close() }
  })
  it('the address book, alike in v1 and v2, is one route per path and method at its base serving both: each answer in the negotiated version', async () => {
    const srv = await startServer({ versioning: { deprecated: [1], deprecatedSince: new Date('2026-12-01T00:00:00Z') } })
    try {
      await request(`${srv.origin}/addresses`, { method: 'POST', json: home })
      const v1 = await request(`${srv.origin}/addresses/1`, { headers: { accept: V1 } })
      expect(v1.status).toBe(200)
      expect(v1.headers.get('content-type')).toContain(V1)
      expect(v1.headers.get('deprecation')).not.toBeNull()
      expect(v1.headers.get('link')).toContain(`</addresses/1>; rel="successor-version"; type="${V2}"`)
      const v2 = await request(`${srv.origin}/addresses/1`, { headers: { accept: V2 } })
      expect(v2.status).toBe(200)
      expect(v2.headers.get('content-type')).toContain(V2)
      expect(v2.headers.get('deprecation')).toBeNull()
      expect(v2.body).toEqual(v1.body)
      // What no version serves still falls through the router to 406, and a method no route has is 405 in either.
      expect((await request(`${srv.origin}/addresses/1`, { headers: { accept: 'application/vnd.rqs.v9+json' } })).status).toBe(406)
      for (const accept of [V1, V2]) expect((await request(`${srv.origin}/addresses`, { method: 'PUT', headers: { accept } })).status).toBe(405)
    } finally { await srv.close() }
  })
})
