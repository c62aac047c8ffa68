import { LOCAL_STORES, storeKinds } from './harness.js'
import { conformanceSuite } from './conformance.suite.js'

conformanceSuite(storeKinds(LOCAL_STORES))
