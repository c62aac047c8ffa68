import { conformanceKinds } from './harness.js'
import { unitOfWorkSuite } from './unit-of-work.suite.js'

unitOfWorkSuite(conformanceKinds(['postgres']))
