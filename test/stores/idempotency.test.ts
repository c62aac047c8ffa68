import { LOCAL_STORES, conformanceKinds, storeKinds } from './harness.js'
import { idempotencySuite } from './idempotency.suite.js'

idempotencySuite(conformanceKinds(LOCAL_STORES))
