import { describe, expect, it } from 'vitest'
import { batchBase, batchFailure, chunk, deleteRequests, MAX_BATCH_REQUESTS, setFieldRequests, type Selected } from '../../../web/app/bulk-actions.js'

/**
 * The app's bulk actions on selected records (web/app/bulk-actions.ts): the
 * requests of a `POST /batch`, each with the ETag read when the record was
 * selected, in batches of at most 100, and the record a refused batch names.
 */
const selected = (n: number): Array<Selected<{ id: string, title: string, year: number }>> =>
  Array.from({ length: n }, (_, i) => ({ id: String(i + 1), etag: `"e${i + 1}"`, record: { id: String(i + 1), title: `Book ${i + 1}`, year: 2000 } }))

describe('deleteRequests', () => {
  it('is a DELETE per record with its ETag as If-Match', () => {
    expect(deleteRequests('/books', selected(2))).toEqual([
      { method: 'DELETE', url: '/books/1', headers: { 'If-Match': '"e1"' } },
      { method: 'DELETE', url: '/books/2', headers: { 'If-Match': '"e2"' } }
    ])
  })

  it('encodes the id in the URL and sends no If-Match when no ETag was read', () => {
    expect(deleteRequests('/notes', [{ id: 'a b/c', record: {} }])).toEqual([{ method: 'DELETE', url: '/notes/a%20b%2Fc' }])
  })
})

describe('setFieldRequests', () => {
  it('patches the one field of each record, under the If-Match of the version selected', () => {
    const requests = setFieldRequests('/books', selected(2), () => ({ year: 1999 }))
    expect(requests).toEqual([
      { method: 'PATCH', url: '/books/1', headers: { 'If-Match': '"e1"' }, body: { year: 1999 } },
      { method: 'PATCH', url: '/books/2', headers: { 'If-Match': '"e2"' }, body: { year: 1999 } }
    ])
  })
})

describe('chunk', () => {
  it('keeps up to 100 in one batch and splits more into batches of 100 in order', () => {
    expect(MAX_BATCH_REQUESTS).toBe(100)
    expect(chunk(selected(100)).map((c) => c.length)).toEqual([100])
    const parts = chunk(selected(250))
    expect(parts.map((c) => c.length)).toEqual([100, 100, 50])
    expect(parts[1]?.[0]?.id).toBe('101')
    expect(chunk([])).toEqual([])
  })
})

describe('batchBase', () => {
  it('keeps a collection\'s URL, and puts students under media-type versioning at /v2', () => {
    expect(batchBase({ url: '/books', accept: 'application/json' })).toBe('/books')
    expect(batchBase({ url: '/v2/students', accept: 'application/json' })).toBe('/v2/students')
    expect(batchBase({ url: '/students', accept: 'application/vnd.rqs.v2+json' })).toBe('/v2/students')
  })
})

describe('batchFailure', () => {
  const items = selected(3)

  it('names the record of the failing request, its status and the server\'s message', () => {
    const body = { type: '/errors/BATCH_FAILED', status: 422, index: 1, failed: { status: 412, errors: [{ error: 'PRECONDITION_FAILED', message: 'The record changed.' }] } }
    expect(batchFailure(body, items)).toEqual({ id: '2', status: 412, messages: ['The record changed.'] })
  })

  it('keeps a message given only as detail, and reads nothing from an answer without an index', () => {
    expect(batchFailure({ index: 0, failed: { status: 404, errors: [{ detail: 'no record 1' }] } }, items)).toEqual({ id: '1', status: 404, messages: ['no record 1'] })
    expect(batchFailure({ status: 400, errors: [] }, items)).toBeUndefined()
    expect(batchFailure(undefined, items)).toBeUndefined()
  })
})
