import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConfigOverrides } from '../../src/options.js'
import { fromFile } from '../../src/services/collections/config.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { DECLARATIONS, declarationFiles } from '../services/collections/fixture.js'
import { gql, subscribe } from './helpers.js'

/**
 * The collections over GraphQL against a real listening server on one store:
 * each answer compared with what REST answers for the same request.
 */

const STUDENTS = [
  { firstName: 'Ada', lastName: 'Lovelace', age: 36 },
  { firstName: 'Alan', lastName: 'Turing', age: 41 },
  { firstName: 'Grace', lastName: 'Hopper', age: 85 },
  { firstName: 'Edsger', lastName: 'Dijkstra', age: 72 },
  { firstName: 'Barbara', lastName: 'Liskov', age: 41 },
  { firstName: 'Ken', lastName: 'Thompson', age: 19 }
]
const BOOKS = [
  { title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' },
  { title: 'Neuromancer', year: 1984, price: 7.25, available: false },
  { title: 'The Dispossessed', year: 1974, price: 12, available: true, published: '1974-05-01' },
  { title: 'Solaris', year: 1961, price: 5, available: false }
]

/** The cursor a REST next link carries. */
function cursorOf (next: string | undefined): string | undefined {
  return next === undefined ? undefined : new URLSearchParams(next.slice(next.indexOf('?') + 1)).get('cursor') ?? undefined
}

/** A GraphQL record as REST writes it: the id as REST's JSON has it. */
function asRest (record: Record<string, unknown>, id: (text: string) => unknown = Number): Record<string, unknown> {
  return { ...record, id: id(record.id as string) }
}

export function graphqlSuite (store: () => ConfigOverrides['store'] | undefined): void {
  const files = declarationFiles()
  let server: RunningServer
  let base: string

  beforeAll(async () => {
    const chosen = store()
    server = await startServer({ collections: fromFile(files.write('books.json', DECLARATIONS), '--collections'), ...(chosen === undefined ? {} : { store: chosen }) })
    base = server.origin
    for (const s of STUDENTS) expect((await request(`${base}/v2/students`, { method: 'POST', json: s })).status).toBe(201)
    for (const b of BOOKS) expect((await request(`${base}/books`, { method: 'POST', json: b })).status).toBe(201)
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  describe('lists', () => {
    it('a filtered, sorted page of students equals REST\'s, and so does the next one through the cursor', async () => {
      const rest = await request(`${base}/v2/students?limit=2&age[gte]=20&sort=-age,firstName&count=true`)
      expect(rest.status).toBe(200)
      const query = 'query ($after: String) { students(first: 2, filter: {age: {gte: 20}}, sort: [age_DESC, firstName_ASC], after: $after) { totalCount edges { cursor node { id firstName lastName age } } pageInfo { hasNextPage endCursor } } }'
      const page = (await gql(base, query)).body.data.students
      expect(page.edges.map((e: any) => asRest(e.node))).toEqual(rest.body.items)
      expect(page.totalCount).toBe(Number(rest.headers.get('x-total-count')))
      expect(page.pageInfo).toEqual({ hasNextPage: true, endCursor: cursorOf(rest.body.next) })
      expect(page.edges[1].cursor).toBe(page.pageInfo.endCursor)
      const restNext = await request(`${base}${rest.body.next as string}`)
      const next = (await gql(base, query, { after: page.pageInfo.endCursor })).body.data.students
      expect(next.edges.map((e: any) => asRest(e.node))).toEqual(restNext.body.items)
      expect(next.pageInfo.hasNextPage).toBe(restNext.body.next !== undefined)
    })

    it('a declared collection: search, text and boolean filters, totalCount only when asked', async () => {
      const rest = await request(`${base}/books?limit=10&available=true&title[contains]=DUNE&sort=-year&count=true`)
      const res = await gql(base, '{ books(first: 10, filter: {available: {eq: true}, title: {contains: "DUNE"}}, sort: [year_DESC]) { totalCount nodes { id title year price available isbn published } } }')
      expect(res.body.errors).toBeUndefined()
      expect(res.body.data.books.nodes.map((n: any) => Object.fromEntries(Object.entries(asRest(n)).filter(([, v]) => v !== null)))).toEqual(rest.body.items)
      expect(res.body.data.books.totalCount).toBe(Number(rest.headers.get('x-total-count')))
      const searched = await gql(base, '{ books(filter: {q: "solar"}) { nodes { title } } }')
      expect(searched.body.data.books.nodes).toEqual([{ title: 'Solaris' }])
    })

    it('reads one record by id; an unknown id is null, a malformed one INVALID_ID', async () => {
      const res = await gql(base, '{ studentsById(id: "2") { id firstName etag } none: studentsById(id: "999") { id } }')
      const rest = await request(`${base}/v2/students/2`)
      expect(res.body.data.studentsById).toEqual({ id: '2', firstName: rest.body.firstName, etag: rest.headers.get('etag') })
      expect(res.body.data.none).toBeNull()
      const bad = await gql(base, '{ booksById(id: "x1") { id } }')
      expect(bad.body.errors[0].extensions.code).toBe('INVALID_ID')
    })

    it('refuses what REST refuses, with REST\'s codes: a page too large, a value too long, an unknown cursor, contains on a number', async () => {
      const large = await gql(base, '{ students(first: 501) { nodes { id } } }')
      expect(large.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ code: 'FIELD_OUT_OF_RANGE', field: 'first' }] })
      const long = await gql(base, `{ books(filter: {title: {eq: "${'x'.repeat(201)}"}}) { nodes { id } } }`)
      expect(long.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ code: 'FIELD_TOO_LONG', field: 'filter.title.eq' }] })
      const cursor = await gql(base, '{ students(after: "bm9wZQ") { nodes { id } } }')
      expect(cursor.body.errors[0].extensions.code).toBe('INVALID_CURSOR')
      const contains = await gql(base, '{ students(filter: {id: {contains: "1"}}) { nodes { id } } }')
      expect(contains.body.errors[0].extensions.code).toBe('INVALID_QUERY')
    })

    it('reads what was written since (record answers are never kept)', async () => {
      const query = '{ books(filter: {title: {eq: "Kept?"}}) { nodes { title } } }'
      expect((await gql(base, query)).body.data.books.nodes).toEqual([])
      await request(`${base}/books`, { method: 'POST', json: { title: 'Kept?', year: 2000, price: 1, available: true } })
      expect((await gql(base, query)).body.data.books.nodes).toEqual([{ title: 'Kept?' }])
    })
  })

  describe('mutations', () => {
    it('a created record is what REST reads, ETag included; a replace with its ETag succeeds, with a stale one fails', async () => {
      const created = await gql(base, 'mutation ($b: BookInput!) { createBook(input: $b) { outcome record { id title year price available etag } } }', { b: { title: 'Kindred', year: 1979, price: 8, available: true } })
      expect(created.body.errors).toBeUndefined()
      const { record, outcome } = created.body.data.createBook
      expect(outcome).toBe('CREATED')
      const rest = await request(`${base}/books/${record.id as string}`)
      const { etag, ...fields } = record
      expect(rest.body).toEqual(asRest(fields))
      expect(rest.headers.get('etag')).toBe(etag)
      const replace = 'mutation ($id: ID!, $tag: String) { replaceBook(id: $id, input: {title: "Kindred", year: 1979, price: 9, available: false}, ifMatch: $tag) { outcome record { price etag } } }'
      const replaced = await gql(base, replace, { id: record.id, tag: etag })
      expect(replaced.body.data.replaceBook).toMatchObject({ outcome: 'REPLACED', record: { price: 9 } })
      expect((await request(`${base}/books/${record.id as string}`)).body.price).toBe(9)
      const stale = await gql(base, replace, { id: record.id, tag: etag })
      expect(stale.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED')
      const deleted = await gql(base, 'mutation ($id: ID!) { deleteBook(id: $id) }', { id: record.id })
      expect(deleted.body.data.deleteBook).toBe(record.id)
      expect((await request(`${base}/books/${record.id as string}`)).status).toBe(404)
      const again = await gql(base, 'mutation ($id: ID!) { deleteBook(id: $id) }', { id: record.id })
      expect(again.body.errors[0].extensions.code).toBe('RECORD_NOT_FOUND')
    })

    it('students follow REST\'s count id rule and codes; addresses keep 64-bit ids exact', async () => {
      const count = (await request(`${base}/v2/students?count=true&limit=1`)).headers.get('x-total-count')
      const created = await gql(base, 'mutation { createStudent(input: {firstName: "Kurt", lastName: "Gödel", age: 71}) { outcome record { id } } }')
      expect(created.body.data.createStudent.record.id).toBe(count)
      const missing = await gql(base, 'mutation { replaceStudent(id: "9999", input: {firstName: "A", lastName: "B", age: 1}) { outcome } }')
      expect(missing.body.errors[0].extensions.code).toBe('STUDENT_NOT_FOUND')
      const big = '9223372036854775807'
      const put = await gql(base, `mutation { replaceAddress(id: "${big}", input: {name: "Far", city: "Away", postalCode: "1"}) { outcome record { id name } } }`)
      expect(put.body.data.replaceAddress).toEqual({ outcome: 'CREATED', record: { id: big, name: 'Far' } })
      expect((await request(`${base}/addresses/${big}`)).text).toContain(`"id":${big}`)
      // The address book keeps the name on an update; leaving it out is fine then, not on a create.
      const kept = await gql(base, `mutation { replaceAddress(id: "${big}", input: {city: "Near", postalCode: "2"}) { outcome record { name city } } }`)
      expect(kept.body.data.replaceAddress).toEqual({ outcome: 'REPLACED', record: { name: 'Far', city: 'Near' } })
      const nameless = await gql(base, 'mutation { replaceAddress(id: "77", input: {city: "Near", postalCode: "2"}) { outcome } }')
      expect(nameless.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ code: 'FIELD_REQUIRED', field: 'name' }] })
    })

    it('a validation failure carries REST\'s codes, details and messages, in the request\'s language', async () => {
      const body = { title: '', year: 5000, price: 1, available: true, isbn: 'x' }
      const rest = await request(`${base}/books`, { method: 'POST', headers: { 'accept-language': 'de' }, json: body })
      const res = await gql(base, 'mutation ($b: BookInput!) { createBook(input: $b) { record { id } } }', { b: body }, { 'accept-language': 'de' })
      expect(res.body.data).toEqual({ createBook: null })
      const error = res.body.errors[0]
      expect(error.extensions.code).toBe('VALIDATION_FAILED')
      expect(error.extensions.errors.map((e: any) => [e.code, e.detail, e.message])).toEqual(rest.body.errors.map((e: any) => [e.error, e.detail, e.message]))
      const missing = await gql(base, 'mutation { createBook(input: {year: 1}) { record { id } } }')
      expect(missing.body.errors[0].extensions.errors.map((e: any) => e.code)).toContain('FIELD_REQUIRED')
    })

    it('honours Idempotency-Key: a retry gets the first answer, another mutation with the key is refused', async () => {
      const key = { 'idempotency-key': `gql-${Math.random()}` }
      const create = 'mutation { createBook(input: {title: "Once", year: 2001, price: 1, available: true}) { record { id title } } }'
      const first = await gql(base, create, undefined, key)
      const retry = await gql(base, create, undefined, key)
      expect(retry.body).toEqual(first.body)
      const listed = await request(`${base}/books?title=Once&count=true`)
      expect(listed.headers.get('x-total-count')).toBe('1')
      const other = await gql(base, 'mutation { createBook(input: {title: "Twice", year: 2001, price: 1, available: true}) { record { id } } }', undefined, key)
      expect(other.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED')
    })

    it('cannot be sent with GET (405)', async () => {
      const res = await request(`${base}/graphql?query=${encodeURIComponent('mutation { deleteBook(id: "1") }')}`)
      expect(res.status).toBe(405)
    })
  })

  describe('subscriptions', () => {
    it('receive a change made over REST, and resume after a seq', async () => {
      const sub = await subscribe(base, 'subscription { booksChanged { seq kind id record { title } } }')
      try {
        expect(sub.status).toBe(200)
        await new Promise((resolve) => setTimeout(resolve, 200)) // the stream is listening once its headers came; give the log a moment
        const created = await request(`${base}/books`, { method: 'POST', json: { title: 'Live', year: 2024, price: 3, available: true } })
        await request(`${base}/notes`, { method: 'POST', json: { text: 'another collection' } })
        await request(`${base}/books/${created.body.id as number}`, { method: 'DELETE' })
        const [made, gone] = await sub.next(2)
        expect(made.data.booksChanged).toMatchObject({ kind: 'CREATED', id: String(created.body.id), record: { title: 'Live' } })
        expect(gone.data.booksChanged).toMatchObject({ kind: 'DELETED', id: String(created.body.id), record: null })
        // Resumed after the create: the delete comes again, from the log.
        const resumed = await subscribe(base, 'subscription ($after: SafeInt) { booksChanged(after: $after) { seq kind } }', { after: made.data.booksChanged.seq })
        try {
          const [first] = await resumed.next(1)
          expect(first.data.booksChanged).toEqual({ seq: gone.data.booksChanged.seq, kind: 'DELETED' })
        } finally { resumed.close() }
      } finally { sub.close() }
    })

    it('only subscriptions run over the stream, and POST /graphql refuses them', async () => {
      const res = await gql(base, 'subscription { booksChanged { seq } }')
      expect(res.body.errors[0].extensions.code).toBe('OPERATION_NOT_SUPPORTED')
      const sub = await subscribe(base, '{ books { totalCount } }')
      try {
        const [result] = await sub.next(1)
        expect(result.errors[0].extensions.code).toBe('OPERATION_NOT_SUPPORTED')
      } finally { sub.close() }
    })
  })
}
