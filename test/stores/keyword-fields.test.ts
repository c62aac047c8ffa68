import { LOCAL_STORES, storeKinds } from './harness.js'
import { keywordFieldsSuite } from './keyword-fields.suite.js'

keywordFieldsSuite(storeKinds(LOCAL_STORES))
