import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fuzzRequest, traversalPath } from './requests.js'
import { rawRequest } from './raw-requests.js'
import { judge, judgeRaw } from './oracle.js'
import { sendRaw, sparingRawCanaries, startFuzzTarget, type FuzzTarget } from './target.js'
import { FUZZ_RUNS, fuzzOptions, runFuzz } from './run.js'
import { memoryStores } from '../helpers/built-ins.js'

/**
 * The fuzz suite of issue 10, on the memory store (part of `npm test`): a
 * few thousand hostile requests against every route of the three services,
 * then raw protocol-level requests. `RQS_FUZZ_RUNS=100000` for a long run,
 * `RQS_FUZZ_SEED=<n>` to replay one.
 */
let target: FuzzTarget
beforeAll(async () => { target = await startFuzzTarget(memoryStores()) })
afterAll(async () => { await target?.close() })

describe('fuzzing every route on the memory store (issue 10)', () => {
  it(`${FUZZ_RUNS} hostile requests: no 5xx, no internal text, every error in its service's shape, no change on a refusal`, async () => {
    const stats = await runFuzz(target, fuzzRequest, FUZZ_RUNS)
    expect(stats.serverErrors).toBe(0)
    const { now, written } = await target.canaries()
    expect(now).toEqual(written)
  }, Math.max(120_000, FUZZ_RUNS * 30))

  it('traversal out of the static folders never reads a file outside them', async () => {
    const runs = Math.max(200, Math.floor(FUZZ_RUNS / 10))
    await fc.assert(fc.asyncProperty(traversalPath, fc.constantFrom('GET', 'HEAD'), async (path, method) => {
      const request = { method, path, headers: {} }
      const response = await target.send(request)
      expect(judge(request, response)).toEqual([])
      expect(response.status === 200 || (response.status >= 400 && response.status < 500) || response.status === 304).toBe(true)
    }), fuzzOptions(runs))
  }, Math.max(60_000, FUZZ_RUNS * 10))

  it('raw bytes a client library would refuse: answered (4xx at worst) and closed, never a crash', async () => {
    const runs = Math.max(200, Math.floor(FUZZ_RUNS / 10))
    await fc.assert(fc.asyncProperty(rawRequest.map(sparingRawCanaries), async (bytes) => {
      const { text, closed } = await sendRaw(target.server.origin, bytes)
      const problems = judgeRaw(bytes, text)
      if (!closed) problems.push('the connection stayed open after the client finished')
      if (problems.length > 0) throw new Error(`${problems.join('; ')}\nsent: ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}\ngot: ${JSON.stringify(text.slice(0, 500))}`)
    }), fuzzOptions(runs))
    // Still serving, and nothing changed that was written before.
    expect((await target.send({ method: 'GET', path: '/healthz', headers: {} })).status).toBe(200)
    const { now, written } = await target.canaries()
    expect(now).toEqual(written)
  }, Math.max(60_000, FUZZ_RUNS * 20))
})
