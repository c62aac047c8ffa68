import { LOCAL_STORES, storeKinds } from './harness.js'
import { idempotencySuite } from './idempotency.suite.js'

idempotencySuite(storeKinds(LOCAL_STORES))
