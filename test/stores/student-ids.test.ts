import { LOCAL_STORES, storeKinds } from './harness.js'
import { studentIdsSuite } from './student-ids.suite.js'

studentIdsSuite(storeKinds(LOCAL_STORES))
