import { join } from 'node:path'
import { describe, it } from 'vitest'
import { declarationFiles } from './fixture.js'
import { acrossRestarts } from './restart.suite.js'

const files = declarationFiles()

describe('a declared collection in an SQLite file across restarts', () => {
  it('keeps its records, migrates an added optional field, and refuses a changed type with exit 2', async () => {
    await acrossRestarts(`sqlite:${join(files.dir, 'books.db')}`)
  })
})
