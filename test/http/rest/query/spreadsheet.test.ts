import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../../helpers/server.js'
import { fromFile } from '../../../../src/services/collections/config.js'
import { DECLARATIONS, declarationFiles } from '../../../services/collections/fixture.js'

/**
 * Issue 37, item 7: CSV for spreadsheets. `download=true` asks for the export
 * as a file (Content-Disposition with the collection's name); `bom=true`
 * starts a CSV with the UTF-8 byte order mark Excel needs; both are declared
 * list parameters, so anything else is still refused.
 */
const files = declarationFiles()
const V2 = 'application/vnd.rqs.v2+json'

async function raw (url: string, accept: string): Promise<{ status: number, headers: Headers, bytes: Buffer }> {
  const res = await fetch(url, { headers: { accept } })
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
}

describe('exports for spreadsheets', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections') })
    expect((await request(`${server.origin}/students`, { method: 'POST', headers: { accept: V2 }, json: { firstName: 'Émilie', lastName: 'du Châtelet', age: 42 } })).status).toBe(201)
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', year: 1965, price: 9.5, available: true } })).status).toBe(201)
  })
  afterAll(async () => { await server?.close() })

  it('names the file with download=true, and adds the byte order mark with bom=true', async () => {
    const plain = await raw(`${server.origin}/students`, 'text/csv')
    expect(plain.headers.get('content-disposition')).toBeNull()
    expect(plain.bytes.toString('utf8')).toBe('id,firstName,lastName,age\r\n0,Émilie,du Châtelet,42\r\n')

    const file = await raw(`${server.origin}/students?download=true&bom=true`, 'text/csv')
    expect(file.status).toBe(200)
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="students.csv"')
    expect([...file.bytes.subarray(0, 3)]).toEqual([0xEF, 0xBB, 0xBF])
    expect(file.bytes.subarray(3).toString('utf8')).toBe(plain.bytes.toString('utf8'))

    const books = await raw(`${server.origin}/books?download=true&sort=title`, 'text/csv')
    expect(books.headers.get('content-disposition')).toBe('attachment; filename="books.csv"')
    expect(books.bytes[0]).toBe('i'.charCodeAt(0))
    const ndjson = await raw(`${server.origin}/addresses?download=true&bom=true`, 'application/x-ndjson')
    expect(ndjson.headers.get('content-disposition')).toBe('attachment; filename="addresses.ndjson"')
    expect(ndjson.bytes.length).toBe(0) // no mark in NDJSON: no address held, no line
  })

  it('keeps the query strict: the new parameters take true or false, and unknown ones are still refused', async () => {
    const bad = await request(`${server.origin}/students?bom=yes`, { headers: { accept: 'text/csv' } })
    expect(bad.status).toBe(400)
    const unknown = await request(`${server.origin}/students?attachment=true`, { headers: { accept: V2 } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.detail).toContain('unknown query parameter "attachment"')
    expect(unknown.body.detail).toContain('download and bom (true or false) for a CSV or NDJSON export')
    // A JSON page takes them without effect.
    const page = await request(`${server.origin}/students?download=true`, { headers: { accept: V2 } })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-disposition')).toBeNull()
  })
})
