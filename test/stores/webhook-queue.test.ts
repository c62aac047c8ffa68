import { afterAll, describe, it } from 'vitest'
import { join } from 'node:path'
import { tempDir } from './harness.js'
import { claimsAndSettlesBatches, claimsUpToTheLimit, type StoreConfig } from './webhook-queue.suite.js'

const tmp = tempDir()
afterAll(() => { tmp.remove() })
let files = 0

const STORES: Array<[string, () => StoreConfig]> = [
  ['memory', () => ({ kind: 'memory' })],
  ['SQLite', () => ({ kind: 'sqlite', path: join(tmp.dir, `queue-${++files}.db`), url: '' })]
]

describe.each(STORES)('the webhooks queue on the %s store', (_name, store) => {
  it('claims the first pending delivery of every record key in one call, leased to one owner, and records a batch of outcomes in one', async () => {
    await claimsAndSettlesBatches(store())
  })

  it('claims at most the limit, every delivery once', async () => {
    await claimsUpToTheLimit(store())
  })
})
