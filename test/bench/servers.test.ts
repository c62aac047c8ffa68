import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer as startBenchServer, type RunningServer as BenchServer } from '../../bench/lib/procs.js'
import { STUDENT_INPUT } from '../../bench/servers/shared.js'
import { startServer, type RunningServer } from '../helpers/server.js'

/**
 * The GET and POST rows' third baseline, Fastify with nothing added plus
 * rqs's headers (bench/servers/fastify-bare.ts, BENCH_RQS_HEADERS=1): it
 * prices exactly the headers rqs sends by default beyond what Fastify sends,
 * so it must send those and no others. Against a real rqs in its default
 * configuration: when rqs's default headers change, this fails until the
 * baseline follows.
 */
describe('the baseline of Fastify with rqs\'s headers', () => {
  let rqs: RunningServer
  let bare: BenchServer
  let withHeaders: BenchServer
  beforeAll(async () => {
    [rqs, bare, withHeaders] = await Promise.all([
      startServer(),
      startBenchServer({ label: 'fastify-bare', script: 'fastify-bare.ts' }),
      startBenchServer({ label: 'fastify-bare-headers', script: 'fastify-bare.ts', env: { BENCH_RQS_HEADERS: '1' } })
    ])
  }, 60_000)
  afterAll(async () => { await Promise.all([rqs?.close(), bare?.stop(), withHeaders?.stop()]) })

  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(STUDENT_INPUT) }
  const namesOf = async (origin: string, path: string, init?: RequestInit): Promise<{ status: number, names: string[], requestId: string | null }> => {
    const res = await fetch(origin + path, init)
    await res.text()
    const names: string[] = []
    res.headers.forEach((_value, name) => { names.push(name) })
    return { status: res.status, names: names.sort(), requestId: res.headers.get('x-request-id') }
  }

  it.each([
    ['POST /students', '/students', post, 201],
    ['GET /students/0', '/students/0', undefined, 200]
  ] as const)('%s: the same headers beyond Fastify\'s as rqs sends, a fresh request id each', async (_name, path, init, status) => {
    const ofRqs = await namesOf(rqs.origin, path, init)
    const ofBare = await namesOf(bare.origin, path, init)
    const first = await namesOf(withHeaders.origin, path, init)
    const second = await namesOf(withHeaders.origin, path, init)
    expect([ofRqs.status, ofBare.status, first.status]).toEqual([status, status, status])
    const beyondBare = (names: string[]): string[] => names.filter((n) => !ofBare.names.includes(n))
    expect(beyondBare(ofRqs.names)).toEqual(['vary', 'x-content-type-options', 'x-frame-options', 'x-request-id'])
    expect(beyondBare(first.names)).toEqual(beyondBare(ofRqs.names))
    expect(first.names).toEqual(ofRqs.names)
    // rqs's own generator: a UUID, a new one every answer.
    expect(first.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(second.requestId).not.toBe(first.requestId)
  })
})
