import { join } from 'node:path'
import { describe, it } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { convertedAtStart, dateTimeSuite, refusedAtStart } from './date-time.suite.js'

const files = declarationFiles()
describe('memory store', () => { dateTimeSuite(() => undefined) })
describe('sqlite store', () => { dateTimeSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'events.db')}` }, {}).store) })
describe('sqlite store, a text field declared a date-time', () => {
  it('converts the stored values to UTC at start', async () => { await convertedAtStart(resolveConfig({ store: `sqlite:${join(files.dir, 'converted.db')}` }, {}).store) })
  it('refuses to start naming the records it cannot convert', async () => { await refusedAtStart(resolveConfig({ store: `sqlite:${join(files.dir, 'refused.db')}` }, {}).store) })
})
