import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { serveMain } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'rqs-seed-log-'))
afterAll(() => { rmSync(dir, { recursive: true, force: true }) })

const students = join(dir, 'students.ndjson')
writeFileSync(students, [1, 2, 3].map((id) => JSON.stringify({ id, firstName: `F${id}`, lastName: `L${id}`, age: 20 + id })).join('\n') + '\n')
const addresses = join(dir, 'addresses.ndjson')
writeFileSync(addresses, JSON.stringify({ id: 1, name: 'Ada', city: 'Springfield', postalCode: '12345' }) + '\n')

describe('rqs serve --seed reports each file it loaded', () => {
  it('in one line of words per file when the log is pretty', async () => {
    const srv = await serveMain(['--seed', `${students},${addresses}`, '--log-format', 'pretty'])
    try {
      const lines = srv.stdout().split('\n')
      expect(lines.filter((l) => l.includes(`seeded 3 students from ${students}`))).toHaveLength(1)
      expect(lines.filter((l) => l.includes(`seeded 1 addresses from ${addresses}`))).toHaveLength(1)
      // No dump of the fields under the line.
      expect(srv.stdout()).not.toMatch(/seeded:|"records"|records:/)
    } finally {
      expect(await srv.stop()).toBe(0)
    }
  })

  it('with the numbers as fields when the log is JSON', async () => {
    const srv = await serveMain(['--seed', students, '--log-format', 'json'])
    try {
      const entries = srv.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(entries.filter((e) => e.seeded !== undefined)).toEqual([
        expect.objectContaining({ msg: `seeded 3 students from ${students}`, seeded: { file: students, service: 'students', records: 3 } })
      ])
    } finally {
      expect(await srv.stop()).toBe(0)
    }
  })
})
