import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { historySuite } from './history.suite.js'

const dir = mkdtempSync(join(tmpdir(), 'rqs-history-db-'))
describe('a record\'s history, memory store', () => { historySuite(() => undefined) })
describe('a record\'s history, sqlite store', () => { historySuite(() => resolveConfig({ store: `sqlite:${join(dir, 'history.db')}` }, {}).store) })
