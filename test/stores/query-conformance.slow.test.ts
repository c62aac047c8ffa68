import { LOCAL_STORES, conformanceKinds } from './harness.js'
import { queryConformanceSuite } from './query-conformance.suite.js'

queryConformanceSuite(conformanceKinds(LOCAL_STORES))
