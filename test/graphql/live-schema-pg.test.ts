import { describePostgres, postgresDatabases } from '../helpers/postgres-http.js'
import { liveSchemaSuite } from './live-schema.suite.js'

/** The GraphQL schema follows collections changed while the server runs, on PostgreSQL. */
const { store } = postgresDatabases()
describePostgres(() => { liveSchemaSuite(store) })
