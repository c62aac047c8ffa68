import { LOCAL_STORES, storeKinds } from '../../stores/harness.js'
import { filteredFeedSuite } from './filtered-feed.suite.js'

filteredFeedSuite(storeKinds(LOCAL_STORES))
