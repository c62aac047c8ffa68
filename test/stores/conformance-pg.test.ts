import { conformanceKinds } from './harness.js'
import { conformanceSuite } from './conformance.suite.js'

conformanceSuite(conformanceKinds(['postgres']))
