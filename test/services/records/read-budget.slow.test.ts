import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { tempDir } from '../../stores/harness.js'
import { readBudgetSuite } from './read-budget.suite.js'

/** The per-request read budget over HTTP, on memory and SQLite (PostgreSQL: read-budget-pg.test.ts). */
const dir = tempDir()
afterAll(dir.remove)
describe('memory store', () => { readBudgetSuite(() => undefined) })
describe('sqlite store', () => { readBudgetSuite(() => resolveConfig({ store: `sqlite:${join(dir.dir, 'read-budget.db')}` }, {}).store) })
