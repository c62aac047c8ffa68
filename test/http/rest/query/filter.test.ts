import { LOCAL_STORES, storeKinds } from '../../../stores/harness.js'
import { filterListSuite } from './filter.suite.js'

filterListSuite(storeKinds(LOCAL_STORES))
