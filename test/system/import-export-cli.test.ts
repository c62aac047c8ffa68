import { describe, expect, it } from 'vitest'
import { runCliToEnd } from '../helpers/process.js'
import { runMain } from '../helpers/cli.js'
import { request, startServer } from '../helpers/server.js'
import { scratch, students } from '../commands/helpers.js'

/** rqs import, rqs export and rqs serve --seed as commands of the rqs executable (child processes). */
const { file, sqlite } = scratch()

describe('through the rqs command line', () => {
  // Three child processes: generous time on a loaded machine.
  it('rqs export and rqs import are commands of rqs, with a one-line summary when stderr is no terminal', { timeout: 90_000 }, async () => {
    const store = sqlite()
    const imported = await runCliToEnd(['import', '--store', store, '--service', 'students', file(students(40))])
    expect(imported.code).toBe(0)
    expect(imported.stderr).toMatch(/^rqs import: 40 students imported in [^\n]+\n$/)
    const exported = await runCliToEnd(['export', '--store', store, '--service', 'students', '--query', 'sort=-age&age[lt]=3'])
    expect(exported.code).toBe(0)
    expect(exported.stdout.split('\n').slice(0, -1).map((l) => JSON.parse(l).age)).toEqual([2, 1, 0])
    const help = await runMain(['--help'])
    expect(help.stdout).toMatch(/^ {2}import +store every record of an NDJSON file/m)
    const importHelp = await runCliToEnd(['import', '--help'])
    expect(importHelp.stdout).toContain('rqs import --store sqlite:PATH|postgres://… --service students|addresses|NAME [--collections FILE] [--skip-invalid] [--max-line SIZE] [--format ndjson|csv] FILE.ndjson|FILE.csv')
  })

  it('rqs serve --seed loads exported files into the memory store at start-up, and a bad one stops it', async () => {
    const studentsFile = file(students(3))
    const addressesFile = file('{"id":5,"name":"N","city":"Kiel","postalCode":"1"}\n')
    const server = await startServer({ seed: [studentsFile, addressesFile] })
    try {
      expect((await request(`${server.origin}/students`)).body.body).toEqual(students(3))
      expect((await request(`${server.origin}/addresses/5`)).body.city).toBe('Kiel')
      expect((await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'A', lastName: 'B', age: 1 } })).body.body.id).toBe(3)
    } finally { await server.close() }
    const bad = await runCliToEnd(['serve', '--port', '0', '--seed', file([students(1)[0], { id: 'x' }])])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/rqs: could not start: seed file .*: line 2: .*id must be a whole number/)
  })
})
