import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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

/**
 * A temp folder removed after the calling test file; `write` puts a JSON (or raw text) file in it.
 * Workers share modules between files (vitest's isolate: false), so a suite module that made its
 * folder at import may be used by a later file after the first one removed it: it is made again.
 */
export function declarationFiles (): { readonly dir: string, write: (name: string, content: unknown) => string } {
  const made = mkdtempSync(join(tmpdir(), 'rqs-collections-'))
  const present = (): string => { mkdirSync(made, { recursive: true }); return made }
  afterAll(() => { rmSync(made, { recursive: true, force: true }) })
  return {
    get dir () { return present() },
    write: (name, content) => {
      const path = join(present(), name)
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
      return path
    }
  }
}
