import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { rulesSuite } from './rules.suite.js'

const files = declarationFiles()
describe('memory store', () => { rulesSuite(() => undefined) })
describe('sqlite store', () => { rulesSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'rules.db')}` }, {}).store) })
