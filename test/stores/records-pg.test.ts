import { conformanceKinds } from './harness.js'
import { recordsSuite } from './records.suite.js'

recordsSuite(conformanceKinds(['postgres']))
