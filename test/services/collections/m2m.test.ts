import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { m2mSuite } from './m2m.suite.js'

const files = declarationFiles()
describe('memory store', () => { m2mSuite(() => undefined) })
describe('sqlite store', () => { m2mSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'shelf.db')}` }, {}).store) })
