import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { tempDir } from '../../stores/harness.js'
import { projectionSuite } from './projection.suite.js'

/** Projection (`fields=`) over HTTP, on memory and SQLite (PostgreSQL: projection-pg.test.ts). */
const dir = tempDir()
afterAll(dir.remove)
describe('memory store', () => { projectionSuite(() => undefined) })
describe('sqlite store', () => { projectionSuite(() => resolveConfig({ store: `sqlite:${join(dir.dir, 'projection.db')}` }, {}).store) })
