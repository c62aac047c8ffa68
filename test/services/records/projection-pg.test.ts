import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { projectionSuite } from './projection.suite.js'

/** Projection (`fields=`) over HTTP on PostgreSQL (a database of its own). */
const { store } = postgresDatabases()

describePostgres(() => {
  projectionSuite(store)
})
