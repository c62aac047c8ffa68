import { afterAll, beforeAll, expect, it } from 'vitest'
import type { ConfigOverrides } from '../../src/options.js'
import { fromFile } from '../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../services/collections/fixture.js'
import { gql } from './helpers.js'

/**
 * GraphQL's update mutations (REST's PATCH) and each mutation's own outcome
 * (issue 31 items 1 and 9), against a real listening server on one store:
 * mutations.test.ts runs it on memory and SQLite, mutations-pg.test.ts on PostgreSQL.
 */
const DUNE = { title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' }
/** The fixture's collections and one with automatic timestamps (x-auto), which an update stamps again. */
const WITH_STAMPS = {
  collections: {
    ...DECLARATIONS.collections,
    memos: {
      schema: {
        type: 'object',
        properties: {
          text: { type: 'string' },
          createdAt: { type: 'string', format: 'date-time', 'x-auto': 'created' },
          updatedAt: { type: 'string', format: 'date-time', 'x-auto': 'updated' }
        },
        required: ['text']
      },
      ids: 'sequence'
    }
  }
}

export function mutationSuite (store: () => ConfigOverrides['store'] | undefined): void {
  const files = declarationFiles()
  let server: RunningServer
  let base: string
  beforeAll(async () => {
    const chosen = store()
    server = await startServer({ collections: fromFile(files.write('books.json', WITH_STAMPS), '--collections'), ...(chosen === undefined ? {} : { store: chosen }) })
    base = server.origin
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  async function book (): Promise<{ id: number, etag: string }> {
    const created = await request(`${base}/books`, { method: 'POST', json: DUNE })
    expect(created.status).toBe(201)
    return { id: created.body.id, etag: created.headers.get('etag') as string }
  }

  it('updateBook merges a patch as REST\'s PATCH does: left out kept, null removes an optional field', async () => {
    const { id } = await book()
    const res = await gql(base, `mutation { updateBook(id: "${id}", patch: {price: 11, isbn: null}) { outcome record { id title year price available isbn } } }`)
    expect(res.body).toEqual({ data: { updateBook: { outcome: 'REPLACED', record: { id: String(id), title: 'Dune', year: 1965, price: 11, available: true, isbn: null } } } })
    expect((await request(`${base}/books/${id}`)).body).toEqual({ id, title: 'Dune', year: 1965, price: 11, available: true })
  })

  it('updateBook refuses a required field set to null, a stale ifMatch and a missing record, each as REST does', async () => {
    const { id, etag } = await book()
    const required = await gql(base, `mutation { updateBook(id: "${id}", patch: {year: null}) { outcome } }`)
    expect(required.body.data).toEqual({ updateBook: null })
    expect(required.body.errors[0]).toMatchObject({ path: ['updateBook'], extensions: { code: 'VALIDATION_FAILED', errors: [{ code: 'FIELD_REQUIRED', field: 'year' }] } })
    expect((await gql(base, `mutation { updateBook(id: "${id}", patch: {price: 1}, ifMatch: ${JSON.stringify(etag)}) { outcome } }`)).body.data.updateBook).toEqual({ outcome: 'REPLACED' })
    const stale = await gql(base, `mutation { updateBook(id: "${id}", patch: {price: 2}, ifMatch: ${JSON.stringify(etag)}) { outcome } }`)
    expect(stale.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED')
    expect((await request(`${base}/books/${id}`)).body.price).toBe(1)
    const missing = await gql(base, 'mutation { updateBook(id: "999999", patch: {price: 2}) { outcome } }')
    expect(missing.body.errors[0].extensions.code).toBe('RECORD_NOT_FOUND')
  })

  it('updateAddress keeps the name: the same name passes, another is refused', async () => {
    const created = await request(`${base}/addresses`, { method: 'POST', json: { name: 'Ada', city: 'Berlin', postalCode: '10115' } })
    const same = await gql(base, `mutation { updateAddress(id: "${String(created.body.id)}", patch: {name: "Ada", city: "Bonn"}) { record { name city postalCode } } }`)
    expect(same.body.data.updateAddress.record).toEqual({ name: 'Ada', city: 'Bonn', postalCode: '10115' })
    const other = await gql(base, `mutation { updateAddress(id: "${String(created.body.id)}", patch: {name: "Alan"}) { outcome } }`)
    expect(other.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ code: 'FIELD_INVALID', field: 'name' }] })
  })

  it('updateMemo stamps automatic timestamps as REST\'s PATCH does: updated is this write\'s, created is kept', async () => {
    const created = await request(`${base}/memos`, { method: 'POST', json: { text: 'first' } })
    expect(created.status).toBe(201)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const res = await gql(base, `mutation { updateMemo(id: "${String(created.body.id)}", patch: {text: "second"}) { outcome record { text createdAt updatedAt } } }`)
    expect(res.body.errors).toBeUndefined()
    const record = res.body.data.updateMemo.record
    expect(record).toMatchObject({ text: 'second', createdAt: created.body.createdAt })
    expect(Date.parse(record.updatedAt)).toBeGreaterThan(Date.parse(created.body.updatedAt))
    expect((await request(`${base}/memos/${String(created.body.id)}`)).body).toMatchObject({ text: 'second', updatedAt: record.updatedAt })
  })

  it('answers each mutation of a document: the second failing leaves the first\'s data (which was stored)', async () => {
    const res = await gql(base, `mutation {
      first: createBook(input: {title: "Kept", year: 2001, price: 1, available: true}) { outcome record { id title } }
      second: createBook(input: {title: "", year: 1, price: 1, available: true}) { outcome record { id } }
      third: deleteBook(id: "999999")
    }`)
    expect(res.status).toBe(200)
    expect(res.body.data.first).toMatchObject({ outcome: 'CREATED', record: { title: 'Kept' } })
    expect(res.body.data.second).toBeNull()
    expect(res.body.data.third).toBeNull()
    expect(res.body.errors.map((e: any) => [e.path, e.extensions.code])).toEqual([[['second'], 'VALIDATION_FAILED'], [['third'], 'RECORD_NOT_FOUND']])
    expect((await request(`${base}/books/${String(res.body.data.first.record.id)}`)).body.title).toBe('Kept')
  })

  it('the schema shows nullable payloads and the update mutations', async () => {
    const sdl = (await request(`${base}/graphql/schema.graphql`)).text
    expect(sdl).toContain('createBook(input: BookInput!): BookWritten\n')
    expect(sdl).toContain('updateBook(id: ID!, patch: BookPatch!, ifMatch: String): BookWritten\n')
    expect(sdl).toContain('deleteBook(id: ID!, ifMatch: String): ID\n')
  })
}
