import { it } from 'vitest'
import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { listsObjectsSuite, shapeChangesAtStart } from './lists-objects.suite.js'

/** Lists, nested objects and free JSON over HTTP on PostgreSQL (a database of its own). */
const { store, fresh } = postgresDatabases()

describePostgres(() => {
  listsObjectsSuite(store)
  it('compares lists\' and objects\' shapes at start', async () => { await shapeChangesAtStart(await fresh()) })
})
