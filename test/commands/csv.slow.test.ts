import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import { runImport } from '../../src/commands/import.js'
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../../src/commands/common.js'
import { DECLARATIONS, declarationFiles } from '../services/collections/fixture.js'
import { run, scratch, students } from './helpers.js'
import { openSqliteStores } from '../helpers/built-ins.js'

/** `rqs export --format csv` and `rqs import --format csv` (issue 22) against SQLite files. */
const tmp = scratch()
const declarations = declarationFiles().write('books.json', DECLARATIONS)
let files = 0
/** A new file with this text, named `*.csv` unless told otherwise. */
const csvFile = (text: string, extension = 'csv'): string => {
  const path = join(tmp.dir, `c${files++}.${extension}`)
  writeFileSync(path, text)
  return path
}
const HEADER = 'id,firstName,lastName,age\r\n'

async function storedStudents (store: string): Promise<unknown[]> {
  const stores = openSqliteStores({ path: store.slice('sqlite:'.length) })
  try { return await stores.students.list() } finally { await stores.close() }
}

describe('rqs export --format csv', () => {
  it('writes a header row and one CRLF row a record, with the same query as NDJSON', async () => {
    const store = tmp.sqlite()
    const records = [...students(4), { id: 9, firstName: 'Line\nbreak', lastName: '=SUM(A1), "quoted"', age: 99 }]
    expect((await run(runImport, ['--store', store, '--service', 'students', tmp.file(records)])).code).toBe(EXIT_OK)
    const all = await run(runExport, ['--store', store, '--service', 'students', '--format', 'csv'])
    expect(all.code).toBe(EXIT_OK)
    expect(all.stdout).toBe(HEADER +
      '0,F0,"Ünïcødé ""0""",0\r\n1,F1,"Ünïcødé ""1""",1\r\n2,F2,"Ünïcødé ""2""",2\r\n3,F3,"Ünïcødé ""3""",3\r\n' +
      '9,"Line\nbreak","=SUM(A1), ""quoted""",99\r\n')
    const some = await run(runExport, ['--store', store, '--service', 'students', '--format', 'csv', '--query', 'age[gte]=2&sort=-age&limit=2'])
    expect(some.stdout).toBe(`${HEADER}9,"Line\nbreak","=SUM(A1), ""quoted""",99\r\n3,F3,"Ünïcødé ""3""",3\r\n`)
    const none = await run(runExport, ['--store', store, '--service', 'students', '--format', 'csv', '--query', 'age=50'])
    expect(none.stdout).toBe(HEADER)
    const bad = await run(runExport, ['--store', store, '--service', 'students', '--format', 'xml'])
    expect(bad.code).toBe(EXIT_USAGE)
    expect(bad.stderr).toContain('--format must be ndjson or csv, got "xml"')
  })
})

describe('rqs import --format csv', () => {
  it('round-trips students, addresses and a declared collection (optional fields, numbers, booleans, empty texts)', async () => {
    const from = tmp.sqlite()
    const to = tmp.sqlite()
    const lines = {
      students: [...students(3), { id: 5, firstName: 'Zoë', lastName: 'a,b\r\nc', age: 0 }],
      addresses: [{ id: '9223372036854775807', name: 'Max "M"', city: 'Kiel', postalCode: '01234' }, { id: 2, name: 'N', city: 'Bonn', postalCode: '5' }],
      books: [{ id: 3, title: 'Dune', year: 1965, price: 9.5, available: true, isbn: '978-0441013593' }, { id: 7, title: '-1', year: 0, price: 0.1, available: false }],
      notes: [{ id: '6f1c1f4e-9a51-4c6e-8a55-8f0e7a3a2b10', text: '' }, { id: '0b7c8f3e-1d2a-4b5c-9e8f-7a6b5c4d3e2f', text: 'x' }]
    }
    for (const [service, records] of Object.entries(lines)) {
      const ndjson = tmp.file(records.map((r) => JSON.stringify(r).replace(/"id":"(\d+)"/, '"id":$1')))
      const options = ['--store', from, '--service', service, '--collections', declarations]
      expect((await run(runImport, [...options, ndjson])).code, service).toBe(EXIT_OK)
      const csv = await run(runExport, [...options, '--format', 'csv'])
      const copy = await run(runImport, ['--store', to, '--service', service, '--collections', declarations, csvFile(csv.stdout)])
      expect(copy.stderr, service).toMatch(new RegExp(`^rqs import: ${records.length} ${service} imported`))
      const before = await run(runExport, options)
      const after = await run(runExport, ['--store', to, '--service', service, '--collections', declarations])
      expect(after.stdout, service).toBe(before.stdout)
      expect(after.stdout.split('\n').length, service).toBe(records.length + 1)
    }
    // A book without its optional isbn is written with an empty cell and read back without it.
    const books = await run(runExport, ['--store', to, '--service', 'books', '--collections', declarations, '--format', 'csv'])
    expect(books.stdout).toBe('id,title,year,isbn,price,available,published\r\n3,Dune,1965,978-0441013593,9.5,true,\r\n7,-1,0,,0.1,false,\r\n')
  })

  it('takes the columns in any order; --format says the format whatever the name, .csv says it without', async () => {
    const store = tmp.sqlite()
    const text = 'age,id,lastName,firstName\n30,1,Lovelace,Ada\n'
    expect((await run(runImport, ['--store', store, '--service', 'students', csvFile(text, 'txt')])).stderr).toContain('line 1: the line is not valid JSON')
    const told = await run(runImport, ['--store', store, '--service', 'students', '--format', 'csv', csvFile(text, 'txt')])
    expect(told.code).toBe(EXIT_OK)
    const stdin = await run(runImport, ['--store', store, '--service', 'students', '--format', 'csv', '-'], { stdin: 'id,firstName,lastName,age\n2,B,C,3\n' })
    expect(stdin.code).toBe(EXIT_OK)
    expect(await storedStudents(store)).toEqual([{ id: 1, firstName: 'Ada', lastName: 'Lovelace', age: 30 }, { id: 2, firstName: 'B', lastName: 'C', age: 3 }])
  })

  it('stops at a bad cell with its record number (the header is line 1) and stores nothing of the file', async () => {
    const store = tmp.sqlite()
    await run(runImport, ['--store', store, '--service', 'students', tmp.file(students(2))])
    const bad = csvFile(`${HEADER}10,A,"two\r\nlines",1\r\n11,B,C,1.0\r\n12,C,D,3\r\n`)
    const res = await run(runImport, ['--store', store, '--service', 'students', bad])
    expect(res.code).toBe(EXIT_FAILURE)
    expect(res.stderr).toBe(`rqs import: ${bad}: line 3: age must be an integer, not "1.0"; nothing was imported\n`)
    const missing = csvFile('id,firstName,age\r\n10,A,1\r\n')
    expect((await run(runImport, ['--store', store, '--service', 'students', missing])).stderr).toBe(`rqs import: ${missing}: line 2: lastName is required; nothing was imported\n`)
    const ragged = csvFile(`${HEADER}10,A,B\r\n`)
    expect((await run(runImport, ['--store', store, '--service', 'students', ragged])).stderr).toContain('line 2: the record has 3 fields, the header 4')
    const open = csvFile(`${HEADER}10,A,"B,1\r\n`)
    expect((await run(runImport, ['--store', store, '--service', 'students', open])).stderr).toContain('line 2: the record is no proper CSV: field 3 opens a quote that is never closed')
    expect(await storedStudents(store)).toEqual(students(2))
  })

  it('refuses a column the collection does not have, naming it', async () => {
    const store = tmp.sqlite()
    const file = csvFile('id,firstName,lastName,age,email\r\n1,A,B,1,a@b.c\r\n')
    const res = await run(runImport, ['--store', store, '--service', 'students', '--skip-invalid', file])
    expect(res.code).toBe(EXIT_FAILURE)
    expect(res.stderr).toBe(`rqs import: ${file}: line 1: unknown column "email": the columns of students are id, firstName, lastName, age; nothing was imported\n`)
    expect(await storedStudents(store)).toEqual([])
  })

  it('with --skip-invalid stores the good records and lists the bad ones by number', async () => {
    const store = tmp.sqlite()
    const res = await run(runImport, ['--store', store, '--service', 'students', '--skip-invalid', csvFile(`${HEADER}1,A,B,x\r\n2,A,B,2\r\n3,,B,3\r\n`)])
    expect(res.code).toBe(EXIT_OK)
    expect(res.stderr).toContain('rqs import: skipped line 2: age must be an integer, not "x"')
    expect(res.stderr).toContain('rqs import: skipped line 4: firstName is required')
    expect(res.stderr).toMatch(/1 students imported .*; skipped 2 invalid lines: 2, 4\n$/)
  })
})
