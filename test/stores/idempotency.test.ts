import { LOCAL_STORES, conformanceKinds } from './harness.js'
import { idempotencySuite } from './idempotency.suite.js'

idempotencySuite(conformanceKinds(LOCAL_STORES))
