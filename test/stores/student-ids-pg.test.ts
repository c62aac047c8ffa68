import { storeKinds } from './harness.js'
import { studentIdsSuite } from './student-ids.suite.js'

studentIdsSuite(storeKinds(['postgres']))
