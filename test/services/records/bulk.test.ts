import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { tempDir } from '../../stores/harness.js'
import { bulkSuite } from './writes.suite.js'

/** Bulk writes over HTTP, on memory and SQLite (PostgreSQL: bulk-pg.test.ts). */
const dir = tempDir()
afterAll(dir.remove)
describe('memory store', () => { bulkSuite(() => undefined) })
describe('sqlite store', () => { bulkSuite(() => resolveConfig({ store: `sqlite:${join(dir.dir, 'bulk.db')}` }, {}).store) })
