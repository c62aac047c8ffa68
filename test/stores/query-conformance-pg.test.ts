import { conformanceKinds } from './harness.js'
import { queryConformanceSuite } from './query-conformance.suite.js'

queryConformanceSuite(conformanceKinds(['postgres']))
