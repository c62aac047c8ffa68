import { afterAll, describe, it } from 'vitest'
import { join } from 'node:path'
import type { ConfigOverrides } from '../../../src/options.js'
import { tempDir } from '../../stores/harness.js'
import { everyChangeOnce, filteredDelivery, orderUnderConcurrency, resumesAfterRestart, retriedWithBackoff, slowAnswerHoldsNoOther } from './delivery.suite.js'

const tmp = tempDir()
afterAll(() => { tmp.remove() })
let files = 0

const STORES: Array<[string, () => ConfigOverrides]> = [
  ['memory', () => ({})],
  ['SQLite', () => ({ store: { kind: 'sqlite', path: join(tmp.dir, `hooks-${++files}.db`), url: '' } })]
]

describe.each(STORES)('webhooks on the %s store', (_name, store) => {
  it('delivers every change once, in per-record order, with valid signatures', async () => {
    await everyChangeOnce(store())
  })

  it('delivers only the changes a filter lets through: creates and replaces that match after, deletes when listed', async () => {
    await filteredDelivery(store())
  })

  it('retries 500, 500, 500 with growing delays and delivers at the fourth attempt', async () => {
    await retriedWithBackoff(store())
  })

  it('keeps per-record order with 16 attempts at once to a slow receiver, on kept-alive connections', async () => {
    await orderUnderConcurrency(store())
  }, 90_000)

  it('delivers the changes written while an answer is awaited, before that answer comes', async () => {
    await slowAnswerHoldsNoOther(store())
  })
})

describe('webhooks on the SQLite store across restarts', () => {
  it('resume where delivery stopped: nothing twice, nothing lost, pending retries kept', async () => {
    await resumesAfterRestart({ kind: 'sqlite', path: join(tmp.dir, 'restart.db'), url: '' })
  }, 60_000) // four starts of a server on a durable store: slow on a loaded machine
})
