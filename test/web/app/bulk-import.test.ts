import { describe, expect, it } from 'vitest'
import { chunkRows, MAX_BULK_RECORDS, refusedLines, runBulk, type ChunkAnswer } from '../../../web/app/bulk-import.js'
import type { PlannedRow } from '../../../web/app/import-plan.js'

/**
 * The app's import of new records as bulk creates (web/app/bulk-import.ts):
 * chunks within the server's limits (one when the file fits), the refused
 * lines named from the server's `/index/field` entries, and the report of
 * what was stored when a chunk is refused, a cancel, a network failure.
 */
const rows = (n: number, title = 'A book'): PlannedRow[] => Array.from({ length: n }, (_, i) => ({ line: i + 2, body: { title, year: 2000 } }))
const noPause = async (): Promise<void> => {}

describe('chunkRows', () => {
  it('keeps a file within the limits in one chunk: one request, all or nothing', () => {
    const chunks = chunkRows(rows(MAX_BULK_RECORDS))
    expect(chunks).toHaveLength(1)
    expect(chunks[0]).toHaveLength(MAX_BULK_RECORDS)
  })

  it('splits by the record limit, in the file\'s order', () => {
    const chunks = chunkRows(rows(25_001))
    expect(chunks.map((c) => c.length)).toEqual([10_000, 10_000, 5_001])
    expect(chunks.map((c) => [c[0]?.line, c[c.length - 1]?.line])).toEqual([[2, 10_001], [10_002, 20_001], [20_002, 25_002]])
  })

  it('splits by the body limit in UTF-8 bytes, never leaving a chunk empty', () => {
    const body = JSON.stringify({ title: 'É'.repeat(10), year: 2000 })
    const size = new TextEncoder().encode(body).length + 1
    const chunks = chunkRows(rows(10, 'É'.repeat(10)), { records: 100, bytes: 2 + size * 4 })
    expect(chunks.map((c) => c.length)).toEqual([4, 4, 2])
    expect(chunkRows(rows(2), { records: 100, bytes: 3 }).map((c) => c.length)).toEqual([1, 1])
  })
})

describe('refusedLines', () => {
  it('names the file\'s lines from the entries\' /index/field, and keeps entries about the request apart', () => {
    const chunk = rows(5).map((row, i) => ({ ...row, line: row.line + 100 * i }))
    const named = refusedLines(chunk, {
      status: 400,
      errors: [
        { error: 'FIELD_TYPE', message: '/3/year must be an integer.', detail: 'body/3/year must be integer' },
        { error: 'FIELD_UNKNOWN', message: 'Unknown field /3/extra.', detail: 'body/3/extra is not a field' },
        { error: 'FIELD_REQUIRED', message: 'title is required.', detail: 'body/0/title is required' },
        { error: 'BULK_SIZE', message: 'Send between 1 and 10000 records.', detail: 'A bulk create holds 1 to 10000 records' }
      ]
    })
    expect(named.lines).toEqual([
      { line: 305, reason: 'year must be an integer. Unknown field extra.' },
      { line: 2, reason: 'title is required.' }
    ])
    expect(named.general).toEqual(['Send between 1 and 10000 records.'])
  })
})

describe('runBulk', () => {
  const fakeServer = (refuse: (chunk: readonly PlannedRow[]) => ChunkAnswer | undefined) => {
    const sent: Array<{ size: number, key: string }> = []
    const send = async (chunk: readonly PlannedRow[], key: string): Promise<ChunkAnswer> => {
      sent.push({ size: chunk.length, key })
      return refuse(chunk) ?? { ok: true, created: chunk.length }
    }
    return { sent, send }
  }
  let keys = 0
  const newKey = (): string => `key-${++keys}`

  it('sends every chunk and reports what was stored, as one span of lines', async () => {
    const server = fakeServer(() => undefined)
    const progress: number[] = []
    const outcome = await runBulk(chunkRows(rows(25_001)), { send: server.send, allOrNothing: true, cancelled: () => false, onProgress: (n) => progress.push(n), newKey })
    expect(outcome).toMatchObject({ created: 25_001, stored: [{ from: 2, to: 25_002 }], refusedChunks: [], unsent: 0, lines: [], cancelled: false })
    expect(server.sent.map((s) => s.size)).toEqual([10_000, 10_000, 5_001])
    expect(new Set(server.sent.map((s) => s.key)).size).toBe(3)
    expect(progress).toEqual([10_000, 20_000, 25_001])
  })

  it('all or nothing: stops at the refused chunk, naming its line, and says which lines were stored', async () => {
    const bad = 15_000 // line 15 000 is index 4 998 of the second chunk
    const server = fakeServer((chunk) => {
      const index = chunk.findIndex((row) => row.line === bad)
      return index < 0 ? undefined : { ok: false, status: 400, problem: { status: 400, errors: [{ error: 'FIELD_TYPE', message: `/${index}/year must be an integer.`, detail: `body/${index}/year must be integer` }] } }
    })
    const outcome = await runBulk(chunkRows(rows(25_001)), { send: server.send, allOrNothing: true, cancelled: () => false, onProgress: () => {}, newKey })
    expect(outcome).toMatchObject({
      created: 10_000,
      stored: [{ from: 2, to: 10_001 }],
      refusedChunks: [{ from: 10_002, to: 20_001, rows: 10_000 }],
      unsent: 5_001,
      lines: [{ line: bad, reason: 'year must be an integer.' }]
    })
    expect(server.sent).toHaveLength(2)

    // Not all or nothing: the chunks after the refused one are sent.
    const going = await runBulk(chunkRows(rows(25_001)), { send: server.send, allOrNothing: false, cancelled: () => false, onProgress: () => {}, newKey })
    expect(going).toMatchObject({ created: 15_001, stored: [{ from: 2, to: 10_001 }, { from: 20_002, to: 25_002 }], unsent: 0 })
  })

  it('a file of one chunk refused stores nothing', async () => {
    const server = fakeServer(() => ({ ok: false, status: 400, problem: { status: 400, errors: [{ message: '/1/title is required.', detail: 'body/1/title is required' }] } }))
    const outcome = await runBulk(chunkRows(rows(3)), { send: server.send, allOrNothing: true, cancelled: () => false, onProgress: () => {}, newKey })
    expect(outcome).toMatchObject({ created: 0, stored: [], refusedChunks: [{ from: 2, to: 4, rows: 3 }], lines: [{ line: 3, reason: 'title is required.' }] })
  })

  it('cancels between chunks: the chunks sent are stored, the rest counted as not sent', async () => {
    let cancel = false
    const server = fakeServer(() => { cancel = true; return undefined })
    const outcome = await runBulk(chunkRows(rows(25_001)), { send: server.send, allOrNothing: true, cancelled: () => cancel, onProgress: () => {}, newKey })
    expect(outcome).toMatchObject({ created: 10_000, stored: [{ from: 2, to: 10_001 }], unsent: 15_001, cancelled: true })
  })

  it('sends a chunk again with the same Idempotency-Key after the network failed', async () => {
    let failures = 2
    const server = fakeServer(() => failures-- > 0 ? { ok: false, status: 0 } : undefined)
    const outcome = await runBulk(chunkRows(rows(3)), { send: server.send, allOrNothing: true, cancelled: () => false, onProgress: () => {}, newKey, pause: noPause })
    expect(outcome).toMatchObject({ created: 3, stored: [{ from: 2, to: 4 }], refusedChunks: [] })
    expect(server.sent).toHaveLength(3)
    expect(new Set(server.sent.map((s) => s.key)).size).toBe(1)

    // The network never comes back: the chunk is neither stored nor refused as far as the page knows.
    const down = fakeServer(() => ({ ok: false, status: 0 }))
    const lost = await runBulk(chunkRows(rows(3)), { send: down.send, allOrNothing: true, cancelled: () => false, onProgress: () => {}, newKey, pause: noPause })
    expect(lost).toMatchObject({ created: 0, stored: [], refusedChunks: [], unanswered: [{ from: 2, to: 4, rows: 3 }], general: [] })
    expect(down.sent).toHaveLength(4)
  })
})
