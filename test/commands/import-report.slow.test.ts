import { describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runExport } from '../../src/commands/export.js'
import { runImport } from '../../src/commands/import.js'
import { EXIT_OK, EXIT_USAGE } from '../../src/commands/common.js'
import { run, scratch, students } from './helpers.js'

/** Issue 37, items 4 and 10: rqs import never overwrites in silence, and its messages and help point the way. */
const { dir, file, sqlite } = scratch()

/** Imports 5 students (ids 0–4), then a file of ids 4, 5, 6, 4, 5 into the same store: one held id replaced, two created. */
async function replacingImport (store: string): Promise<void> {
  expect((await run(runImport, ['--store', store, '--service', 'students', file(students(5))])).stderr).toMatch(/^rqs import: 5 students imported in [^\n]*\n$/)
  const second = await run(runImport, ['--store', store, '--service', 'students', file([...students(3, 4), ...students(2, 4)])])
  expect(second.code).toBe(EXIT_OK)
  expect(second.stderr).toMatch(/^rqs import: 3 students imported \(2 created, 1 replaced: the records held under those ids were overwritten\) in \d+\.\d s; 2 lines repeated the id of an earlier line/)
}

describe('rqs import counts what it replaced', () => {
  it('SQLite: created and replaced, distinct ids counted once', async () => {
    await replacingImport(sqlite())
  })

})

describe('rqs import on a terminal', () => {
  it('says "committing" once the file is read, instead of redrawing the bar below 100 %', async () => {
    const tty = await run(runImport, ['--store', sqlite(), '--service', 'students', file(students(3000))], { tty: true })
    expect(tty.code).toBe(EXIT_OK)
    expect(tty.stderr).toContain('rqs import: committing 3000 students…\n')
    // After the line that says so, no bar is drawn again: only the summary follows.
    const after = tty.stderr.slice(tty.stderr.indexOf('committing'))
    expect(after).not.toMatch(/%/)
    expect(after).toMatch(/\nrqs import: 3000 students imported in /)
  })
})

describe('the CLI points the way', () => {
  it('names --collections when --service names no built-in collection', async () => {
    const res = await run(runImport, ['--store', sqlite(), '--service', 'books', file([])])
    expect(res.code).toBe(EXIT_USAGE)
    expect(res.stderr).toContain('--service must be students or addresses, got "books" (a collection you declared needs --collections FILE, or RQS_COLLECTIONS, naming its declarations)')
  })
})


describe('CSV for spreadsheets in the CLI', () => {
  it('rqs export --bom starts a CSV with the UTF-8 byte order mark; only with --format csv', async () => {
    const store = sqlite()
    expect((await run(runImport, ['--store', store, '--service', 'students', file([{ id: 0, firstName: 'Émilie', lastName: 'C', age: 1 }])])).code).toBe(EXIT_OK)
    const marked = await run(runExport, ['--store', store, '--service', 'students', '--format', 'csv', '--bom'])
    expect(marked.stdout).toBe('\ufeffid,firstName,lastName,age\r\n0,Émilie,C,1\r\n')
    const plain = await run(runExport, ['--store', store, '--service', 'students', '--format', 'csv'])
    expect(plain.stdout).toBe('id,firstName,lastName,age\r\n0,Émilie,C,1\r\n')
    const ndjson = await run(runExport, ['--store', store, '--service', 'students', '--bom'])
    expect(ndjson.code).toBe(EXIT_USAGE)
    expect(ndjson.stderr).toContain('--bom applies to --format csv only')
    // The mark is read back by rqs import.
    const path = join(dir, 'marked.csv')
    writeFileSync(path, marked.stdout)
    expect((await run(runImport, ['--store', sqlite(), '--service', 'students', path])).code).toBe(EXIT_OK)
  })

  it('names the separator of a semicolon-separated file', async () => {
    const path = join(dir, 'semicolons.csv')
    writeFileSync(path, 'id;firstName;lastName;age\r\n0;A;B;1\r\n')
    const res = await run(runImport, ['--store', sqlite(), '--service', 'students', path])
    expect(res.stderr).toBe(`rqs import: ${path}: line 1: unknown column "id;firstName;lastName;age": the columns of students are id, firstName, lastName, age (the header looks semicolon-separated: columns must be separated by commas); nothing was imported\n`)
  })
})
