import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from '../collections/fixture.js'
import { batchSuite } from './batch.suite.js'

const files = declarationFiles()
describe('memory store', () => { batchSuite(() => undefined) })
describe('sqlite store', () => { batchSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'batch.db')}` }, {}).store) })
