import { conformanceKinds } from './harness.js'
import { idempotencySuite } from './idempotency.suite.js'

idempotencySuite(conformanceKinds(['postgres']))
