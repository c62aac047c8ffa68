import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { declarationFiles } from './fixture.js'
import { convertedAtStart, dateTimeSuite, refusedAtStart } from './date-time.suite.js'
import { runExport } from '../../../src/commands/export.js'
import { runImport } from '../../../src/commands/import.js'
import { EXIT_OK } from '../../../src/commands/common.js'
import { run } from '../../commands/helpers.js'

const files = declarationFiles()
describe('memory store', () => { dateTimeSuite(() => undefined) })
describe('sqlite store', () => { dateTimeSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'events.db')}` }, {}).store) })
describe('sqlite store, a text field declared a date-time', () => {
  it('converts the stored values to UTC at start', async () => { await convertedAtStart(resolveConfig({ store: `sqlite:${join(files.dir, 'converted.db')}` }, {}).store) })
  it('refuses to start naming the records it cannot convert', async () => { await refusedAtStart(resolveConfig({ store: `sqlite:${join(files.dir, 'refused.db')}` }, {}).store) })
})

describe('rqs import of a date-time field', () => {
  it('stores CSV cells and NDJSON lines in UTC and refuses a cell that is no date-time', async () => {
    const declarations = files.write('meetings.json', { collections: { meetings: { schema: { type: 'object', properties: { title: { type: 'string' }, at: { type: 'string', format: 'date-time' } }, required: ['title', 'at'] } } } })
    const store = `sqlite:${join(files.dir, 'imported.db')}`
    const csv = files.write('meetings.csv', 'id,title,at\r\n1,Berlin,2024-05-01T09:00:00+02:00\r\n')
    const ndjson = files.write('meetings.ndjson', '{"id":2,"title":"Quito","at":"2024-05-01T02:00:00-05:00"}\n')
    expect((await run(runImport, ['--store', store, '--service', 'meetings', '--collections', declarations, '--format', 'csv', csv])).code).toBe(EXIT_OK)
    expect((await run(runImport, ['--store', store, '--service', 'meetings', '--collections', declarations, ndjson])).code).toBe(EXIT_OK)
    const exported = await run(runExport, ['--store', store, '--service', 'meetings', '--collections', declarations, '--format', 'csv'])
    expect(exported.stdout).toBe('id,title,at\r\n1,Berlin,2024-05-01T07:00:00.000Z\r\n2,Quito,2024-05-01T07:00:00.000Z\r\n')
    const bad = files.write('bad.csv', 'id,title,at\r\n3,Nowhere,soon\r\n')
    const refused = await run(runImport, ['--store', store, '--service', 'meetings', '--collections', declarations, '--format', 'csv', bad])
    expect(refused.code).not.toBe(EXIT_OK)
    expect(refused.stderr).toContain('at must be a date-time')
  })
})
