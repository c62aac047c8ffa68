import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { schemaSuite } from './schema.suite.js'

/** Collections changed while the server runs, on PostgreSQL. */
const { store } = postgresDatabases()
describePostgres(() => { schemaSuite(store) })
