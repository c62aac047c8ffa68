import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { builtInRulesSuite } from './rules-built-in.suite.js'

/** The built-in collections' rules on PostgreSQL: the same answers as memory and SQLite (rules-built-in.suite.ts). */
const { store } = postgresDatabases()

describePostgres(() => { builtInRulesSuite(store) })
