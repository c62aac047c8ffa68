import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { labelSuite } from './label.suite.js'

/** Each collection's label field and description through changes made while the server runs, on PostgreSQL. */
const { store } = postgresDatabases()
describePostgres(() => { labelSuite(store) })
