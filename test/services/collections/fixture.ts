import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

/** The declarations the collection tests serve: books (sequence ids, every field type) and notes (uuid ids). */
export const DECLARATIONS = {
  collections: {
    books: {
      description: 'Books on the shelf',
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 200 },
          year: { type: 'integer', minimum: 0, maximum: 3000 },
          isbn: { type: 'string', pattern: '^[0-9-]{10,17}$' },
          price: { type: 'number', minimum: 0 },
          available: { type: 'boolean' },
          published: { type: 'string', format: 'date' }
        },
        required: ['title', 'year', 'price', 'available']
      },
      ids: 'sequence'
    },
    notes: {
      schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      ids: 'uuid'
    }
  }
}

/** A temp folder removed after the calling test file; `write` puts a JSON (or raw text) file in it. */
export function declarationFiles (): { dir: string, write: (name: string, content: unknown) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'rqs-collections-'))
  afterAll(() => { rmSync(dir, { recursive: true, force: true }) })
  return {
    dir,
    write: (name, content) => {
      const path = join(dir, name)
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
      return path
    }
  }
}
