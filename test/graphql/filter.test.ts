import { LOCAL_STORES, storeKinds } from '../stores/harness.js'
import { graphqlFilterSuite } from './filter.suite.js'

graphqlFilterSuite(storeKinds(LOCAL_STORES))
