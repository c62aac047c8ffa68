import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import { runImport } from '../../src/commands/import.js'
import { openSqliteStores } from '../../src/stores/sqlite/index.js'
import { run, scratch, students } from './helpers.js'

/** rqs import / rqs export in-process against SQLite files (PostgreSQL: import-export-pg.test.ts; the command line: test/system/import-export-cli.test.ts). */
const { dir, file, sqlite } = scratch()

describe('rqs import', () => {
  it('stores a good file with the students\' ids; the id rule goes on from the number of records', async () => {
    const store = sqlite()
    const records = [...students(5, 10), ...students(3, 0)]
    const res = await run(runImport, ['--store', store, '--service', 'students', file(records)])
    expect(res.code).toBe(0)
    expect(res.stderr).toMatch(/^rqs import: 8 students imported in \d+\.\d s \(\d+ records\/s\)\n$/)
    const stores = openSqliteStores({ path: store.slice('sqlite:'.length) })
    try {
      expect(await stores.students.list()).toEqual([...records].sort((a, b) => a.id - b.id))
      // Eight records held: the next create gets id 8 (no record there), the one after id 9.
      expect((await stores.students.create({ firstName: 'A', lastName: 'B', age: 1 })).id).toBe(8)
      expect((await stores.students.create({ firstName: 'C', lastName: 'D', age: 2 })).id).toBe(9)
    } finally { await stores.close() }
  })

  it('stops at a bad line with its number and reason, and stores nothing of the file', async () => {
    const store = sqlite()
    await run(runImport, ['--store', store, '--service', 'students', file(students(2))])
    const bad = file([...students(3, 100), { id: 200, firstName: 'X', lastName: 'Y', age: -4 }, ...students(3, 300)])
    const res = await run(runImport, ['--store', store, '--service', 'students', bad])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(`rqs import: ${bad}: line 4: age must be >= 0; nothing was imported\n`)
    const notJson = await run(runImport, ['--store', store, '--service', 'students', file(['{"id":1,']) ])
    expect(notJson.stderr).toMatch(/line 1: the line is not valid JSON/)
    const proto = await run(runImport, ['--store', store, '--service', 'students', file(['{"id":1,"firstName":"a","lastName":"b","age":1,"__proto__":{"x":1}}'])])
    expect(proto.stderr).toMatch(/line 1: the line has a __proto__/)
    const stores = openSqliteStores({ path: store.slice('sqlite:'.length) })
    try {
      expect(await stores.students.list()).toEqual(students(2))
    } finally { await stores.close() }
  })

  it('with --skip-invalid stores the valid lines and says how many were skipped, and which', async () => {
    const store = sqlite()
    const lines = [students(1)[0], 'nonsense', { id: 1, firstName: '', lastName: 'B', age: 1 }, '', students(1, 2)[0], { id: 3, lastName: 'x', age: 1 }]
    const res = await run(runImport, ['--store', store, '--service', 'students', '--skip-invalid', file(lines)])
    expect(res.code).toBe(0)
    expect(res.stderr).toContain('rqs import: skipped line 2: the line is not valid JSON')
    expect(res.stderr).toContain('rqs import: skipped line 3: firstName must NOT have fewer than 1 characters')
    expect(res.stderr).toContain('rqs import: skipped line 6: firstName is required')
    expect(res.stderr).toMatch(/rqs import: 2 students imported in .*; skipped 3 invalid lines: 2, 3, 6\n$/)
  })

  it('draws a progress bar with records, rate and ETA on a terminal, and one summary line otherwise', async () => {
    const path = file(students(3000))
    const tty = await run(runImport, ['--store', sqlite(), '--service', 'students', path], { tty: true })
    expect(tty.code).toBe(0)
    expect(tty.stderr).toMatch(/\[[0-9;]*[GKJ]/) // the bar is redrawn in place (cursor and erase sequences)
    expect(tty.stderr).toMatch(/rqs import .*% \| \d+ students \| \d+ records\/s \| ETA/)
    expect(tty.stderr).toMatch(/rqs import: 3000 students imported in /)
    const plain = await run(runImport, ['--store', sqlite(), '--service', 'students', path])
    expect(plain.stderr.split('\n')).toEqual([expect.stringMatching(/^rqs import: 3000 students imported in \d+\.\d s \(\d+ records\/s\)$/), ''])
    const exported = await run(runExport, ['--store', sqlite(), '--service', 'students'], { tty: true })
    expect(exported.stderr).toMatch(/rqs export: 0 students exported/)
  })

  it('reads stdin, and refuses bad usage with exit code 2', async () => {
    const fromStdin = await run(runImport, ['--store', sqlite(), '--service', 'students'], { stdin: `${JSON.stringify(students(1)[0])}\n` })
    expect(fromStdin.stderr).toMatch(/1 students imported/)
    for (const argv of [['--service', 'students'], ['--store', 'memory', '--service', 'students'], ['--store', sqlite()], ['--store', sqlite(), '--service', 'grades'], ['--store', 'mysql://x', '--service', 'students'], ['--bogus']]) {
      const res = await run(runImport, argv)
      expect(res.code, argv.join(' ')).toBe(2)
      expect(res.stderr).toContain('Usage: rqs import')
    }
    expect((await run(runImport, ['--store', sqlite(), '--service', 'students', join(dir, 'missing.ndjson')])).code).toBe(1)
  })
})
