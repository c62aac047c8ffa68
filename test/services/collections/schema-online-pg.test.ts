import pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * Changes of a collection on PostgreSQL that never hold writers up: a long
 * reader does not queue writes behind the change (it waits for the table in
 * short tries), indexes are built concurrently and valid, and a unique key
 * whose build meets records written meanwhile is undone (no invalid index
 * left, the declaration as it was), through the admin API.
 */
const { store } = postgresDatabases()
const title = { type: 'string', minLength: 1, maxLength: 50 }
const BOOKS = { schema: { type: 'object', properties: { title, year: { type: 'integer' } }, required: ['title'] }, ids: 'sequence' }
const WITH_PAGES = { schema: { type: 'object', properties: { title, year: { type: 'integer' }, pages: { type: 'integer', default: 100 } }, required: ['title'] }, ids: 'sequence' }
const UNIQUE_TITLE = { ...WITH_PAGES, unique: [['title']] }

describePostgres(() => {
  let server: RunningServer
  let sql: pg.Client
  beforeAll(async () => {
    const location = store()
    if (location === undefined) return
    server = await startServer({ collections: { declared: [], api: true }, store: location })
    sql = new pg.Client({ connectionString: location.url })
    await sql.connect()
  })
  afterAll(async () => {
    await sql?.end()
    await server?.close()
  })

  const json = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): ReturnType<typeof request> =>
    await request(`${server.origin}${path}`, { method, headers, ...(body === undefined ? {} : { json: body }) })
  const change = async (declaration: unknown): ReturnType<typeof request> => {
    const etag = (await request(`${server.origin}/collections/books`)).headers.get('etag') as string
    return await json('PUT', '/collections/books', declaration, { 'if-match': etag })
  }
  const indexes = async (): Promise<Array<{ name: string, valid: boolean }>> => (await sql.query<{ name: string, valid: boolean }>(
    "SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'rqs_col_books'::regclass ORDER BY 1")).rows

  it('adds a field while a long reader holds the table: writes go on meanwhile, the change waits for the table in short tries', async () => {
    expect((await json('POST', '/collections', { name: 'books', ...BOOKS })).status).toBe(201)
    for (const t of ['Dune', 'Emma', 'Ubik']) expect((await json('POST', '/books', { title: t, year: 1965 })).status).toBe(201)
    const reader = new pg.Client({ connectionString: store()?.url })
    await reader.connect()
    try {
      await reader.query('BEGIN')
      await reader.query('SELECT count(*) FROM rqs_col_books')
      const changing = change(WITH_PAGES)
      await new Promise((resolve) => setTimeout(resolve, 700))
      // The change is waiting for the reader; a writer is not queued behind it.
      const started = performance.now()
      const written = await json('POST', '/books', { title: 'Solaris', year: 1961 })
      expect(written.status).toBe(201)
      expect(performance.now() - started).toBeLessThan(1000)
      await new Promise((resolve) => setTimeout(resolve, 300))
      await reader.query('COMMIT')
      const changed = await changing
      expect(changed.status).toBe(200)
      expect(changed.body.plan.added).toEqual([{ field: 'pages', default: 100 }])
    } finally {
      await reader.end()
    }
    expect((await json('GET', '/books?pages=100')).body.items).toHaveLength(4)
    const created = await json('POST', '/books', { title: 'Kindred', year: 1979 })
    expect(created.body).toMatchObject({ pages: 100 })
    expect(await indexes()).toContainEqual({ name: 'rqs_col_books_pages', valid: true })
    // The catalogue's default served the records held (no row rewritten), and stays for writes of the declaration before.
    const column = (await sql.query<{ has_default: boolean, missing: boolean }>("SELECT atthasdef AS has_default, atthasmissing AS missing FROM pg_attribute WHERE attrelid = 'rqs_col_books'::regclass AND attname = 'pages'")).rows[0]
    expect(column).toEqual({ has_default: true, missing: true })
  })

  it('builds a new unique key concurrently', async () => {
    const changed = await change(UNIQUE_TITLE)
    expect(changed.status).toBe(200)
    expect((await indexes()).filter((i) => i.name.includes('_uq_'))).toEqual([{ name: expect.stringContaining('rqs_col_books_uq_') as string, valid: true }])
    expect((await json('POST', '/books', { title: 'Dune' })).status).toBe(409)
  })

  it('undoes a unique key whose build meets records written meanwhile: no invalid index left, the declaration as it was', async () => {
    const without = await change(WITH_PAGES)
    expect(without.status).toBe(200)
    const version = without.body.version as number
    const writer = new pg.Client({ connectionString: store()?.url })
    await writer.connect()
    try {
      // A duplicate the plan does not see (not committed yet); the concurrent build waits for it, then meets it.
      await writer.query('BEGIN')
      await writer.query("INSERT INTO rqs_col_books (id, title, title_folded, pages) VALUES (1000, 'Dune', 'dune', 1)")
      const changing = change(UNIQUE_TITLE)
      await new Promise((resolve) => setTimeout(resolve, 700))
      await writer.query('COMMIT')
      const refused = await changing
      expect(refused.status).toBe(409)
      expect(refused.body.errors[0].error).toBe('CHANGE_REFUSED')
      expect(refused.body.errors[0].detail).toContain('share values')
    } finally {
      await writer.end()
    }
    expect((await indexes()).filter((i) => i.name.includes('_uq_'))).toEqual([])
    expect((await json('GET', '/collections/books')).body.version).toBe(version)
    expect((await json('POST', '/books', { title: 'Dune' })).status).toBe(201)
  })

  it('keeps this instance\'s writes flowing through its own change that they fit: not one answered 503', async () => {
    const shelf = (more: Record<string, unknown>): unknown => ({ schema: { type: 'object', properties: { room: { type: 'string' }, ...more } }, ids: 'sequence' })
    expect((await json('POST', '/collections', { name: 'shelves', ...shelf({}) as object })).status).toBe(201)
    const statuses: number[] = []
    let changing = true
    const writer = async (): Promise<void> => {
      while (changing) statuses.push((await json('POST', '/shelves', { room: 'A' })).status)
      for (let i = 0; i < 5; i++) statuses.push((await json('POST', '/shelves', { room: 'B' })).status)
    }
    const writers = Array.from({ length: 4 }, writer)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const etag = (await request(`${server.origin}/collections/shelves`)).headers.get('etag') as string
    const changed = await json('PUT', '/collections/shelves', shelf({ floor: { type: 'integer', default: 1 } }), { 'if-match': etag })
    changing = false
    await Promise.all(writers)
    expect(changed.status, changed.text).toBe(200)
    expect(statuses.length).toBeGreaterThan(20)
    expect(statuses.filter((s) => s !== 201)).toEqual([])
    const last = await json('POST', '/shelves', { room: 'C' })
    expect(last.body).toMatchObject({ room: 'C', floor: 1 })
  })
})
