import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { runtimeReferencesSuite } from './runtime-references.suite.js'

const files = declarationFiles()
describe('memory store', () => { runtimeReferencesSuite(() => undefined) })
describe('sqlite store', () => { runtimeReferencesSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'runtime-references.db')}` }, {}).store) })
