import { join } from 'node:path'
import { afterAll, describe } from 'vitest'
import { resolveConfig } from '../../src/options.js'
import { tempDir } from '../stores/harness.js'
import { rulesSuite } from './rules.suite.js'

/** The record rules on GraphQL and the change feed, on memory and SQLite (PostgreSQL: rules-pg.test.ts). */
const dir = tempDir()
afterAll(dir.remove)
describe('memory store', () => { rulesSuite(() => undefined) })
describe('sqlite store', () => { rulesSuite(() => resolveConfig({ store: `sqlite:${join(dir.dir, 'rules.db')}` }, {}).store) })
