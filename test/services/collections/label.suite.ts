import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { checkCollections } from '../../../src/services/collections/declare.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * Each collection's label field and description, as GET /collections and
 * /openapi.json say them (label.test.ts: memory and SQLite; label-pg.test.ts:
 * PostgreSQL), through changes made while the server runs: a rename of the
 * label field is followed, a change that drops it refused.
 */
const AUTHORS = {
  description: 'Who wrote the books',
  'x-label': 'name',
  schema: { type: 'object', properties: { born: { type: 'integer' }, name: { type: 'string' } }, required: ['born'] }
}
const COUNTS = { schema: { type: 'object', properties: { n: { type: 'integer' } } } }
const TAGS = { schema: { type: 'object', properties: { rank: { type: 'integer' }, label: { type: 'string' }, note: { type: 'string' } }, required: ['note'] }, 'x-label': 'label' }

interface Listed { name: string, label: string, description?: string }

export function labelSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  beforeAll(async () => {
    const store = storeOf()
    const declared = checkCollections({ authors: AUTHORS, counts: COUNTS }, 'test')
    server = await startServer({ collections: { declared, api: true }, ...(store === undefined ? {} : { store }) })
  })
  afterAll(async () => { await server.close() })

  const json = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): ReturnType<typeof request> =>
    await request(`${server.origin}${path}`, { method, headers, ...(body === undefined ? {} : { json: body }) })
  const listed = async (name: string): Promise<Listed | undefined> => ((await json('GET', '/collections')).body.items as Listed[]).find((c) => c.name === name)
  const component = async (title: string): Promise<Record<string, unknown>> => (await json('GET', '/openapi.json')).body.components.schemas[title]
  const change = async (name: string, declaration: unknown, query = ''): ReturnType<typeof request> => {
    const etag = (await request(`${server.origin}/collections/${name}`)).headers.get('etag') as string
    return await json('PUT', `/collections/${name}${query}`, declaration, { 'if-match': etag })
  }

  it('lists each collection\'s label field and description, and /openapi.json says them on the record\'s schema', async () => {
    expect(await listed('authors')).toMatchObject({ label: 'name', description: 'Who wrote the books' })
    // No string field: the id labels; no description: none said.
    const counts = await listed('counts')
    expect(counts).toMatchObject({ label: 'id' })
    expect(counts).not.toHaveProperty('description')
    // A built-in collection by the same rule.
    expect(await listed('students')).toMatchObject({ label: 'firstName', declared: false })
    expect(await component('Author')).toMatchObject({ 'x-label': 'name', description: 'Who wrote the books' })
    expect(await component('Count')).toMatchObject({ 'x-label': 'id' })
    // Records are answered as before.
    expect((await json('POST', '/authors', { born: 1920, name: 'Frank Herbert' })).body).toEqual({ id: 1, born: 1920, name: 'Frank Herbert' })
    expect((await json('GET', '/authors/1')).body).toEqual({ id: 1, born: 1920, name: 'Frank Herbert' })
  })

  it('refuses a created collection whose label is no string field, with the message a start gives', async () => {
    const refused = await json('POST', '/collections', { name: 'tags', ...TAGS, 'x-label': 'rank' })
    expect(refused.status).toBe(400)
    expect(refused.body.errors[0]).toMatchObject({ error: 'DECLARATION_INVALID' })
    expect(refused.body.detail).toContain('collections.tags.x-label: "rank" is an integer field: a label is a string field, one of "label", "note"')
    expect(await listed('tags')).toBeUndefined()
    const created = await json('POST', '/collections', { name: 'tags', ...TAGS })
    expect(created.status).toBe(201)
    expect(await listed('tags')).toMatchObject({ label: 'label' })
    expect(await component('Tag')).toMatchObject({ 'x-label': 'label' })
  })

  it('keeps the label across changes: a rename is followed, a drop refused, a declaration without one takes the rule', async () => {
    const renamed = { ...TAGS, schema: { ...TAGS.schema, properties: { rank: { type: 'integer' }, name: { type: 'string', 'x-renamed-from': 'label' }, note: { type: 'string' } } } }
    expect((await change('tags', renamed)).status).toBe(200)
    expect(await listed('tags')).toMatchObject({ label: 'name' })
    expect(await component('Tag')).toMatchObject({ 'x-label': 'name' })

    const dropped = { ...TAGS, 'x-label': 'name', schema: { ...TAGS.schema, properties: { rank: { type: 'integer' }, note: { type: 'string' } } } }
    const refused = await change('tags', dropped, '?confirm=drop')
    expect(refused.status).toBe(400)
    expect(refused.body.detail).toContain('collections.tags.x-label: "name" is not a declared field')
    expect(await listed('tags')).toMatchObject({ label: 'name' })

    // A declaration that names no label: the first required string field.
    const { 'x-label': _label, ...unlabelled } = renamed
    expect((await change('tags', { ...unlabelled, schema: { ...renamed.schema, properties: { rank: { type: 'integer' }, name: { type: 'string' }, note: { type: 'string' } } } })).status).toBe(200)
    expect(await listed('tags')).toMatchObject({ label: 'note' })
  })
}
