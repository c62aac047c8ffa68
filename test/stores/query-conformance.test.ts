import { LOCAL_STORES, storeKinds } from './harness.js'
import { queryConformanceSuite } from './query-conformance.suite.js'

queryConformanceSuite(storeKinds(LOCAL_STORES))
