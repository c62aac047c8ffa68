import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { aggregateSuite } from './aggregate.suite.js'

/** Aggregates over HTTP on PostgreSQL (a database of its own): the same answers as memory and SQLite. */
const { store } = postgresDatabases()

describePostgres(() => {
  aggregateSuite(store)
})
