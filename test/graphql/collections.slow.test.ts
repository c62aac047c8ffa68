import { join } from 'node:path'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { afterAll, describe } from 'vitest'
import { resolveConfig } from '../../src/options.js'
import { graphqlSuite } from './suite.js'

/** The collections over GraphQL (issue 23) on the memory store and on SQLite (a temp file). */
const dir = mkdtempSync(join(tmpdir(), 'rqs-graphql-'))
afterAll(() => { rmSync(dir, { recursive: true, force: true }) })

describe('memory store', () => { graphqlSuite(() => undefined) })
describe('sqlite store', () => { graphqlSuite(() => resolveConfig({ store: `sqlite:${join(dir, 'graphql.db')}` }, {}).store) })
