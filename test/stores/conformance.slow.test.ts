import { LOCAL_STORES, conformanceKinds } from './harness.js'
import { conformanceSuite } from './conformance.suite.js'

conformanceSuite(conformanceKinds(LOCAL_STORES))
