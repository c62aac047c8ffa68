import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { builtInRulesSuite } from './rules-built-in.suite.js'

const dir = mkdtempSync(join(tmpdir(), 'rqs-built-in-rules-db-'))
describe('memory store', () => { builtInRulesSuite(() => undefined) })
describe('sqlite store', () => { builtInRulesSuite(() => resolveConfig({ store: `sqlite:${join(dir, 'rules.db')}` }, {}).store) })
