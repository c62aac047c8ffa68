import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { tempDir } from '../../stores/harness.js'
import { aggregateSuite } from './aggregate.suite.js'

/** Aggregates over HTTP, on memory and SQLite (PostgreSQL: aggregate-pg.test.ts). */
const dir = tempDir()
afterAll(dir.remove)
describe('memory store', () => { aggregateSuite(() => undefined) })
describe('sqlite store', () => { aggregateSuite(() => resolveConfig({ store: `sqlite:${join(dir.dir, 'aggregate.db')}` }, {}).store) })
