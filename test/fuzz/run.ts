import fc from 'fast-check'
import type { FuzzRequest } from './requests.js'
import { judge } from './oracle.js'
import type { FuzzTarget, FuzzResponse } from './target.js'

/** Cases per run: a few thousand by default (about half a minute at most), `RQS_FUZZ_RUNS` for more. */
export const FUZZ_RUNS = positiveInteger(process.env.RQS_FUZZ_RUNS) ?? 3000
const SEED = process.env.RQS_FUZZ_SEED === undefined ? undefined : Number(process.env.RQS_FUZZ_SEED)

export interface FuzzStats {
  cases: number
  serverErrors: number
  byStatus: Record<number, number>
}

export function fuzzOptions (numRuns: number): fc.Parameters<unknown> {
  // Long runs stop at the first failure instead of shrinking against a server whose records keep changing.
  return { numRuns, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: numRuns > 10_000 }
}

/**
 * Sends `runs` generated requests one after another and judges each answer
 * (./oracle.ts). A refused request (4xx) must not have changed any record.
 * Prints the status counts: the figures of a long run.
 */
export async function runFuzz (target: FuzzTarget, requests: fc.Arbitrary<FuzzRequest>, runs: number, label = 'memory'): Promise<FuzzStats> {
  const stats: FuzzStats = { cases: 0, serverErrors: 0, byStatus: {} }
  const started = Date.now()
  await fc.assert(fc.asyncProperty(requests, async (request) => {
    const before = await target.changes()
    const response = await target.send(request)
    stats.cases++
    stats.byStatus[response.status] = (stats.byStatus[response.status] ?? 0) + 1
    if (response.status >= 500) stats.serverErrors++
    const problems = judge(request, response)
    if (response.status >= 400 && await target.changes() !== before) problems.push('a refused request changed a record')
    // A replayed answer (Idempotency-Key) is the first one as it was, not the record as it is now.
    if (response.status === 201 && response.headers['idempotent-replayed'] === undefined) problems.push(...await readBack(target, request, response))
    if (problems.length > 0) throw new Error(`${problems.join('; ')}\n${describe(request, response)}`)
  }), fuzzOptions(runs))
  console.log(`fuzz (${label}): ${stats.cases} cases in ${((Date.now() - started) / 1000).toFixed(1)} s, ${stats.serverErrors} answers 5xx, by status ${JSON.stringify(stats.byStatus)}`)
  return stats
}

/**
 * What a 201 acknowledged is what the store gives back: the same bytes and
 * the same ETag on a read right after (issue 10, defect 4), on every store.
 */
async function readBack (target: FuzzTarget, request: FuzzRequest, created: FuzzResponse): Promise<string[]> {
  const accept: Record<string, string> = request.headers.accept === undefined ? {} : { accept: request.headers.accept }
  let path = created.headers.location
  if (path === undefined) {
    const id = (JSON.parse(created.text) as { body?: { id?: number } }).body?.id // the v1 envelope has no Location
    path = `${request.path.startsWith('/v1/') ? '/v1' : ''}/students/${String(id)}`
  }
  const read = await target.send({ method: 'GET', path, headers: accept })
  const problems: string[] = []
  if (read.status !== 200) problems.push(`read-back of ${path}: ${read.status}`)
  if (read.text !== created.text) problems.push(`read-back of ${path} differs from the 201: ${read.text.slice(0, 200)} vs ${created.text.slice(0, 200)}`)
  if (read.headers.etag !== created.headers.etag) problems.push(`read-back of ${path}: ETag ${String(read.headers.etag)} vs ${String(created.headers.etag)}`)
  return problems
}

function describe (request: FuzzRequest, response: FuzzResponse): string {
  const body = request.body === undefined ? '' : ` body ${JSON.stringify(request.body.toString('utf8').slice(0, 300))}`
  return `request: ${request.method} ${request.path.slice(0, 300)} ${JSON.stringify(request.headers)}${body}\n` +
    `answer: ${response.status} ${String(response.headers['content-type'])} ${response.text.slice(0, 500)}`
}

function positiveInteger (text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < 1) return undefined
  return Number(text)
}
