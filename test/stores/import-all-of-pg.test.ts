import { storeKinds } from './harness.js'
import { importAllOfSuite } from './import-all-of.suite.js'

/** RecordStores.importAllOf on PostgreSQL (a database of its own). */
importAllOfSuite(storeKinds(['postgres']))
