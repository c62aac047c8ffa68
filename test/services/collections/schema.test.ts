import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { schemaSuite } from './schema.suite.js'

const files = declarationFiles()
describe('memory store', () => { schemaSuite(() => undefined) })
describe('sqlite store', () => { schemaSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'schema.db')}` }, {}).store) })
