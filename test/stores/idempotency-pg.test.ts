import { storeKinds } from './harness.js'
import { idempotencySuite } from './idempotency.suite.js'

idempotencySuite(storeKinds(['postgres']))
