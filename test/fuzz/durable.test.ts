import { describe, expect, it } from 'vitest'
import { storeKinds } from '../stores/harness.js'
import { fuzzRequest } from './requests.js'
import { startFuzzTarget } from './target.js'
import { FUZZ_RUNS, runFuzz } from './run.js'

/**
 * The same fuzzing once on each durable store (issue 10): SQLite always,
 * PostgreSQL when DATABASE_URL is set (skipped, saying so, without it). A
 * tenth of the memory run's cases: the stores' own contracts are tested in
 * test/stores; here it is about text, numbers and errors crossing the driver.
 */
const RUNS = Math.max(100, Math.floor(FUZZ_RUNS / 10))

for (const kind of storeKinds(['sqlite', 'postgres'])) {
  describe.skipIf(kind.skip !== undefined)(`fuzzing every route on the ${kind.name} store${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    it(`${RUNS} hostile requests: no 5xx, no internal text, errors in the service's shape, records written before unchanged`, async () => {
      await kind.setup()
      try {
        const target = await startFuzzTarget(await kind.fresh())
        try {
          const stats = await runFuzz(target, fuzzRequest, RUNS, kind.name)
          expect(stats.serverErrors).toBe(0)
          const { now, written } = await target.canaries()
          expect(now).toEqual(written)
        } finally {
          await target.close()
        }
      } finally {
        await kind.teardown()
      }
    }, Math.max(120_000, RUNS * 100))
  })
}
