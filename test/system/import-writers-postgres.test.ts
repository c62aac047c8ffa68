import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { runCliToEnd } from '../helpers/process.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { createTestDatabase, POSTGRES_SKIP_REASON, SKIP_POSTGRES, tempDir, type TestDatabase } from '../stores/harness.js'

/**
 * Issue 36, item 7: `rqs import` of 200 000 addresses into a PostgreSQL
 * database a server writes to. Before the fix a POST drew from the id
 * sequence an id the file holds and waited on the import's uncommitted row
 * for the whole apply (10.3 s). The bound asserted (1 s) is one of
 * correctness, not speed: a POST that waits for the import takes seconds.
 */
const RECORDS = 200_000
const BOUND_MS = 1000

function addressLines (n: number, from = 1): string {
  let text = ''
  for (let i = 0; i < n; i++) text += `{"id":${from + i},"name":"N${i}","city":"Kiel","postalCode":"${i % 100_000}"}\n`
  return text
}

describe.skipIf(SKIP_POSTGRES)(`rqs import into PostgreSQL while a server writes${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  let database: TestDatabase
  let server: RunningServer
  const tmp = tempDir()

  beforeAll(async () => {
    database = await createTestDatabase()
    server = await startServer({ store: { kind: 'postgres', url: database.url } })
  })
  afterAll(async () => {
    await server?.close()
    await database?.drop()
    tmp.remove()
  })

  async function changes (): Promise<Array<{ seq: string, kind: string, record_id: string }>> {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      // Numbered first, as any reader of the log does: with nobody following the feed, a write's change waits
      // in rqs_pending_changes until someone reads (docs/decisions.md, when changes are numbered).
      while (Number((await client.query('SELECT rqs_number_changes(100000) AS n')).rows[0].n) > 0) { /* until none is pending */ }
      return (await client.query("SELECT seq::text, kind, record_id::text FROM rqs_changes WHERE service = 'addresses' ORDER BY rqs_changes.seq")).rows
    } finally { await client.end() }
  }

  it(`a POST while ${RECORDS} addresses are imported never waits ${BOUND_MS} ms; the file's changes reach the feed once each, in id order`, { timeout: 300_000 }, async () => {
    const file = join(tmp.dir, 'addresses.ndjson')
    writeFileSync(file, addressLines(RECORDS))
    const latencies: number[] = []
    const created: bigint[] = []
    let importing = true
    const writer = (async () => {
      while (importing) {
        const started = performance.now()
        const res = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'During', city: 'Bonn', postalCode: '1' } })
        latencies.push(performance.now() - started)
        expect(res.status).toBe(201)
        created.push(BigInt(res.body.id))
      }
    })()
    let imported
    try {
      imported = await runCliToEnd(['import', '--store', database.url, '--service', 'addresses', file])
    } finally {
      importing = false
      await writer
    }
    expect(imported.stderr).toMatch(new RegExp(`${RECORDS} addresses imported`))
    expect(imported.code).toBe(0)
    const sorted = [...latencies].sort((a, b) => a - b)
    const p99 = sorted[Math.floor(sorted.length * 0.99)] as number
    const worst = sorted[sorted.length - 1] as number
    process.stderr.write(`import of ${RECORDS} addresses: ${latencies.length} concurrent POSTs, p99 ${p99.toFixed(0)} ms, worst ${worst.toFixed(0)} ms\n`)
    expect(latencies.length).toBeGreaterThan(10)
    expect(worst).toBeLessThan(BOUND_MS)

    // Every record is there: the file's, and those POSTed meanwhile that the file did not replace.
    const beyond = created.filter((id) => id > BigInt(RECORDS)).length
    expect((await request(`${server.origin}/addresses?limit=1`)).status).toBe(200)
    const log = await changes()
    // The file's changes: one per record, in id order, from the last change of id 1 on (a POST before the file
    // was staged may have created id 1 first). A POST committed while the import applied may be numbered
    // between them (numbering follows the pending changes' keys, docs/decisions.md "Order and gaps"): its id
    // is past the file's, so the changes of ids the file holds are exactly the file's, in order.
    const first = log.map((c) => c.record_id).lastIndexOf('1')
    const fromFile = log.slice(first).filter((c) => BigInt(c.record_id) <= BigInt(RECORDS))
    expect(fromFile.map((c) => Number(c.record_id))).toEqual(Array.from({ length: RECORDS }, (_, i) => i + 1))
    expect(log.slice(first).every((c) => BigInt(c.record_id) <= BigInt(RECORDS) || c.kind === 'created')).toBe(true)
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const count = Number((await client.query('SELECT count(*) AS n FROM rqs_addresses')).rows[0].n)
      expect(count).toBe(RECORDS + beyond)
    } finally { await client.end() }
  })

  it('a failing import leaves nothing behind, while POSTs meanwhile are kept', { timeout: 120_000 }, async () => {
    const before = (await changes()).length
    const file = join(tmp.dir, 'broken.ndjson')
    writeFileSync(file, addressLines(20_000, 500_000) + '{"id":"x"}\n')
    const posted = request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'Kept', city: 'Bonn', postalCode: '2' } })
    const imported = await runCliToEnd(['import', '--store', database.url, '--service', 'addresses', file])
    expect((await posted).status).toBe(201)
    expect(imported.code).toBe(1)
    expect(imported.stderr).toMatch(/line 20001: .*nothing was imported/)
    expect((await request(`${server.origin}/addresses/500000`)).status).toBe(404)
    const after = await changes()
    expect(after.slice(before).map((c) => c.kind)).toEqual(['created'])
  })
})

