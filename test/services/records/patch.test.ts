import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { tempDir } from '../../stores/harness.js'
import { patchSuite } from './writes.suite.js'

/** PATCH (merge patch) and refused unknown members over HTTP, on memory and SQLite (PostgreSQL: bulk-pg.test.ts). */
const dir = tempDir()
afterAll(dir.remove)
describe('memory store', () => { patchSuite(() => undefined) })
describe('sqlite store', () => { patchSuite(() => resolveConfig({ store: `sqlite:${join(dir.dir, 'patch.db')}` }, {}).store) })
