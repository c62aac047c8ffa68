import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { collectionSuite } from './http.suite.js'

const files = declarationFiles()
describe('memory store', () => { collectionSuite(() => undefined) })
describe('sqlite store', () => { collectionSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'books.db')}` }, {}).store) })
