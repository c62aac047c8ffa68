import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { relationsSuite } from './relations.suite.js'

const files = declarationFiles()
describe('memory store', () => { relationsSuite(() => undefined) })
describe('sqlite store', () => { relationsSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'library.db')}` }, {}).store) })
