import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { historySuite } from './history.suite.js'

/** A record's history on PostgreSQL: the same answers as memory and SQLite (history.suite.ts). */
const { store } = postgresDatabases()

describePostgres(() => { historySuite(store) })
