import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { labelSuite } from './label.suite.js'

const files = declarationFiles()
describe('memory store', () => { labelSuite(() => undefined) })
describe('sqlite store', () => { labelSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'label.db')}` }, {}).store) })
