import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { runtimeReferencesSuite } from './runtime-references.suite.js'

/** Collections created at run time that reference others, on PostgreSQL. */
const { store } = postgresDatabases()
describePostgres(() => { runtimeReferencesSuite(store) })
