import { LOCAL_STORES, conformanceKinds } from './harness.js'
import { recordsSuite } from './records.suite.js'

recordsSuite(conformanceKinds(LOCAL_STORES))
