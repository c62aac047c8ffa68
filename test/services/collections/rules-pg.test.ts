import { describePostgres, postgresDatabases } from '../../helpers/postgres-http.js'
import { rulesSuite } from './rules.suite.js'

/** Record rules on PostgreSQL: the same answers as memory and SQLite (rules.suite.ts). */
const { store } = postgresDatabases()

describePostgres(() => { rulesSuite(store) })
