import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { resolveConfig } from '../../src/options.js'
import { tempDir } from '../stores/harness.js'
import { mutationSuite } from './mutations.suite.js'

/** GraphQL's update mutations and per-field outcomes on memory and SQLite (PostgreSQL: mutations-pg.test.ts). */
const dir = tempDir()
afterAll(dir.remove)
describe('memory store', () => { mutationSuite(() => undefined) })
describe('sqlite store', () => { mutationSuite(() => resolveConfig({ store: `sqlite:${join(dir.dir, 'mutations.db')}` }, {}).store) })
