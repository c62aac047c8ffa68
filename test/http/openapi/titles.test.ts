import { afterAll, beforeAll, expect, it } from 'vitest'
import { checkCollections } from '../../../src/services/collections/declare.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * A declaration's titles are labels for people, not type names: a field titled
 * like another collection's record ("Author" beside `authors`) neither stops
 * the start nor takes the record's place among the named components.
 */
let server: RunningServer
beforeAll(async () => {
  const declared = checkCollections({
    authors: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    books: {
      schema: {
        type: 'object',
        properties: {
          writer: { type: 'string', title: 'Author' },
          editor: { type: 'object', title: 'Author', properties: { initials: { type: 'string' } } }
        }
      }
    }
  }, 'test')
  server = await startServer({ collections: { declared } })
})
afterAll(async () => { await server.close() })

it('starts, names the authors record Author, and keeps the fields titled "Author" inline', async () => {
  const doc = (await request(`${server.origin}/openapi.json`)).body
  const schemas = doc.components.schemas as Record<string, { type?: string, properties?: Record<string, unknown> }>
  expect(schemas.Author?.type).toBe('object')
  expect(Object.keys(schemas.Author?.properties ?? {})).toEqual(expect.arrayContaining(['id', 'name']))
  const book = schemas.Book?.properties as Record<string, { type?: string, title?: string, $ref?: string }>
  expect(book.writer).toMatchObject({ type: 'string' })
  expect(book.writer?.$ref).toBeUndefined()
  expect(book.editor).toMatchObject({ type: 'object' })
  expect(book.editor?.$ref).toBeUndefined()
})
