import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { readBudgetSuite } from './read-budget.suite.js'

/** The per-request read budget over HTTP on PostgreSQL (a database of its own): the same answers as memory and SQLite. */
const { store } = postgresDatabases()

describePostgres(() => {
  readBudgetSuite(store)
})
