import { LOCAL_STORES, storeKinds } from './harness.js'
import { importAllOfSuite } from './import-all-of.suite.js'

/** RecordStores.importAllOf on memory and SQLite (PostgreSQL: import-all-of-pg.test.ts). */
importAllOfSuite(storeKinds(LOCAL_STORES))
