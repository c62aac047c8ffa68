import { storeKinds } from './harness.js'
import { conformanceSuite } from './conformance.suite.js'

conformanceSuite(storeKinds(['postgres']))
