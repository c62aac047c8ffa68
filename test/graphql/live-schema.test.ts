import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../src/options.js'
import { declarationFiles } from '../services/collections/fixture.js'
import { liveSchemaSuite } from './live-schema.suite.js'

const files = declarationFiles()
describe('memory store', () => { liveSchemaSuite(() => undefined) })
describe('sqlite store', () => { liveSchemaSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'live-schema.db')}` }, {}).store) })
