import { chmodSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import { describeFileError, runImport } from '../../src/commands/import.js'
import { seedStores } from '../../src/data/seed.js'
import { STUDENTS } from '../../src/services/students/collection.js'
import { run, scratch, students } from './helpers.js'
import { memoryStores, openSqliteStores } from '../helpers/built-ins.js'

/** rqs import / rqs export in-process against SQLite files (PostgreSQL: import-export-pg.test.ts; the command line: test/system/import-export-cli.test.ts). */
const { dir, file, sqlite } = scratch()

describe('rqs import', () => {
  it('stores a good file with the students\' ids; the id rule goes on from the number of records', async () => {
    const store = sqlite()
    const records = [...students(5, 10), ...students(3, 0)]
    const res = await run(runImport, ['--store', store, '--service', 'students', file(records)])
    expect(res.code).toBe(0)
    expect(res.stderr).toMatch(/^rqs import: 8 students imported in \d+\.\d s(?: \(\d+ records\/s\))?\n$/)
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
    expect(res.stderr).toBe(`rqs import: ${bad}: line 4: age must be at least 0; nothing was imported\n`)
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
    expect(res.stderr).toContain('rqs import: skipped line 3: firstName must not be empty')
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
    expect(plain.stderr.split('\n')).toEqual([expect.stringMatching(/^rqs import: 3000 students imported in \d+\.\d s(?: \(\d+ records\/s\))?$/), ''])
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
  })
})

describe('rqs import edges (issue 19)', () => {
  const line = (s: unknown): string => `${JSON.stringify(s)}\n`

  it('passes over a leading UTF-8 byte order mark, from a file and from stdin', async () => {
    const store = sqlite()
    const res = await run(runImport, ['--store', store, '--service', 'students', file(`\ufeff${students(3).map(line).join('')}`)])
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toMatch(/^rqs import: 3 students imported/)
    const piped = await run(runImport, ['--store', store, '--service', 'students'], { stdin: `\ufeff${line(students(1, 7)[0])}` })
    expect(piped.stderr).toMatch(/^rqs import: 1 students imported/)
    const stores = openSqliteStores({ path: store.slice('sqlite:'.length) })
    try {
      expect(await stores.students.list()).toEqual([...students(3), ...students(1, 7)])
    } finally { await stores.close() }
  })

  it('stops at a line longer than --max-line (1 MiB by default) with its number and the limit; --max-line raises it', async () => {
    const store = sqlite()
    const long = `{"id":9,"firstName":"${'x'.repeat(2 * 1024 * 1024)}","lastName":"L","age":1}\n`
    const path = file(`${line(students(1)[0])}${long}${line(students(1, 1)[0])}`)
    const res = await run(runImport, ['--store', store, '--service', 'students', path])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(`rqs import: ${path}: line 2: the line is longer than the limit of 1 MiB (--max-line raises it); nothing was imported\n`)
    // Raised, the line is read, and judged as any other.
    const raised = await run(runImport, ['--store', store, '--service', 'students', '--max-line', '4mb', path])
    expect(raised.stderr).toBe(`rqs import: ${path}: line 2: firstName must be at most 200 characters long; nothing was imported\n`)
    const skipped = await run(runImport, ['--store', store, '--service', 'students', '--skip-invalid', path])
    expect(skipped.code).toBe(0)
    expect(skipped.stderr).toMatch(/^rqs import: skipped line 2: the line is longer than the limit of 1 MiB\nrqs import: 2 students imported in .*; skipped 1 invalid line: 2\n$/)
    for (const bad of ['lots', '0', '12abc']) {
      const usage = await run(runImport, ['--store', store, '--service', 'students', '--max-line', bad, path])
      expect(usage.code, bad).toBe(2)
      expect(usage.stderr).toContain('--max-line must be')
    }
  })

  it('counts the records stored, not lines: lines that repeat an id are said apart, and the last of each is stored', async () => {
    const lines = [{ id: 0, firstName: 'A', lastName: 'first', age: 1 }, { id: 1, firstName: 'B', lastName: 'only', age: 2 }, { id: 0, firstName: 'A', lastName: 'second', age: 3 }, { id: 0, firstName: 'A', lastName: 'last', age: 4 }]
    const store = sqlite()
    const res = await run(runImport, ['--store', store, '--service', 'students', file(lines)])
    expect(res.code).toBe(0)
    expect(res.stderr).toMatch(/^rqs import: 2 students imported in \d+\.\d s(?: \(\d+ records\/s\))?; 2 lines repeated the id of an earlier line \(the last line of an id is stored\)\n$/)
    const stores = openSqliteStores({ path: store.slice('sqlite:'.length) })
    try {
      expect(await stores.students.list()).toEqual([lines[3], lines[1]])
    } finally { await stores.close() }
    const addresses = await run(runImport, ['--store', sqlite(), '--service', 'addresses', file('{"id":9223372036854775807,"name":"a","city":"c","postalCode":"p"}\n{"id":9223372036854775807,"name":"b","city":"c","postalCode":"p"}\n')])
    expect(addresses.stderr).toMatch(/^rqs import: 1 addresses imported .*; 1 line repeated the id of an earlier line/)
  })

  it('says in one line why a file cannot be read, with exit code 2', async () => {
    const missing = join(dir, 'missing.ndjson')
    const res = await run(runImport, ['--store', sqlite(), '--service', 'students', missing])
    expect(res).toEqual({ code: 2, stdout: '', stderr: `rqs import: cannot read ${missing}: no such file\n` })
    const folder = await run(runImport, ['--store', sqlite(), '--service', 'students', dir])
    expect(folder).toEqual({ code: 2, stdout: '', stderr: `rqs import: cannot read ${dir}: it is a directory\n` })
    const below = await run(runImport, ['--store', sqlite(), '--service', 'students', join(file([]), 'x.ndjson')])
    expect(below.stderr).toMatch(/: a part of the path is not a directory\n$/)
    expect(describeFileError(Object.assign(new Error('EACCES: permission denied, open'), { code: 'EACCES' }))).toBe('permission denied')
  })

  // root reads any file whatever its mode: the unreadable file cannot be made here.
  it.skipIf(process.getuid?.() === 0)('says "permission denied" for a file it may not read (skipped as root, which may read any file)', async () => {
    const path = file(students(1))
    chmodSync(path, 0o000)
    const res = await run(runImport, ['--store', sqlite(), '--service', 'students', path])
    expect(res).toEqual({ code: 2, stdout: '', stderr: `rqs import: cannot read ${path}: permission denied\n` })
  })

  it('rqs serve --seed passes over a BOM, and logs the records stored', async () => {
    const stores = memoryStores()
    const loaded = await seedStores(stores, [file(`\ufeff${[...students(2), { ...students(1)[0], lastName: 'again' }].map(line).join('')}`)], [STUDENTS])
    expect(loaded).toEqual([expect.objectContaining({ service: 'students', records: 2 })])
    expect((await stores.students.get(0))?.lastName).toBe('again')
  })
})

describe('rqs export', () => {
  it('writes every record, past the address book\'s page size of 50 and its maximum of 500; --query limit caps it at any number (issue 19)', async () => {
    const store = sqlite()
    const addresses = Array.from({ length: 1234 }, (_, i) => ({ id: i + 1, name: `N${i}`, city: i % 2 === 0 ? 'Kiel' : 'Bonn', postalCode: String(i) }))
    expect((await run(runImport, ['--store', store, '--service', 'addresses', file(addresses)])).code).toBe(0)
    const all = await run(runExport, ['--store', store, '--service', 'addresses'])
    expect(all.code).toBe(0)
    expect(all.stdout).toBe(addresses.map((a) => `${JSON.stringify(a)}\n`).join(''))
    expect(all.stderr).toMatch(/^rqs export: 1234 addresses exported/)
    expect((await run(runExport, ['--store', store, '--service', 'addresses', '--query', 'city=Kiel'])).stdout.split('\n')).toHaveLength(617 + 1)
    expect((await run(runExport, ['--store', store, '--service', 'addresses', '--query', 'limit=600'])).stdout.split('\n')).toHaveLength(600 + 1)
    const zero = await run(runExport, ['--store', store, '--service', 'addresses', '--query', 'limit=0'])
    expect(zero.code).toBe(2)
    expect(zero.stderr).toMatch(/^rqs export: --query: limit must be >= 1/)
  })
})

describe('rqs import summary (issue 22)', () => {
  it('gives no rate for a run under a second: one record is not "14 records/s"', async () => {
    const store = sqlite()
    const res = await run(runImport, ['--store', store, '--service', 'students', file(students(1))])
    expect(res.stderr).toMatch(/^rqs import: 1 students imported in 0\.\d s\n$/)
  })
})
