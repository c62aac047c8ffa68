import { it } from 'vitest'
import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { convertedAtStart, dateTimeSuite, refusedAtStart } from './date-time.suite.js'

/** The date-time kind over HTTP on PostgreSQL (databases of their own). */
const { store, fresh } = postgresDatabases()

describePostgres(() => {
  dateTimeSuite(store)
  it('converts a text field declared a date-time at start', async () => { await convertedAtStart(await fresh()) })
  it('refuses to start naming the records it cannot convert', async () => { await refusedAtStart(await fresh()) })
})
