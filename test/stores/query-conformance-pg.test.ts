import { storeKinds } from './harness.js'
import { queryConformanceSuite } from './query-conformance.suite.js'

queryConformanceSuite(storeKinds(['postgres']))
