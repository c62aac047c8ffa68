import { expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { request, startServer } from '../../helpers/server.js'
import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { declarationFiles } from './fixture.js'
import { defaultsFilledAtStart, MODEL, modelSuite, uniqueOverDuplicates } from './model.suite.js'

/** Issue 29's data model over HTTP on PostgreSQL (databases of their own), and unique keys across two instances. */
const files = declarationFiles()
const { store, fresh } = postgresDatabases()

describePostgres(() => {
  modelSuite(store)
  it('refuses a unique key over duplicates at start, naming the records', async () => { await uniqueOverDuplicates(await fresh()) })
  it('writes a default into the records held when a field is added', async () => { await defaultsFilledAtStart(await fresh()) })

  it('lets exactly one of 200 creates of one key through, racing on two instances sharing the database', async () => {
    const shared = await fresh()
    const collections = fromFile(files.write('two.json', MODEL), '--collections')
    const one = await startServer({ collections, store: shared })
    const two = await startServer({ collections, store: shared })
    try {
      const answers = await Promise.all(Array.from({ length: 200 }, async (_, i) =>
        await request(`${(i % 2 === 0 ? one : two).origin}/books`, { method: 'POST', json: { title: `Race ${i}`, year: 2024, isbn: 'shared-key' } })))
      const statuses = answers.map((a) => a.status)
      expect(statuses.filter((s) => s === 201)).toHaveLength(1)
      expect(statuses.filter((s) => s === 409)).toHaveLength(199)
      expect((await request(`${two.origin}/books?isbn=shared-key`)).body.items).toHaveLength(1)
    } finally {
      await one.close()
      await two.close()
    }
  })
})
