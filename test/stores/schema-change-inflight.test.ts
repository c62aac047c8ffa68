import { LOCAL_STORES, storeKinds } from './harness.js'
import { schemaChangeInflightSuite } from './schema-change-inflight.suite.js'

schemaChangeInflightSuite(storeKinds(LOCAL_STORES))
