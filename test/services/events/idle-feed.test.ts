import { LOCAL_STORES, storeKinds } from '../../stores/harness.js'
import { idleFeedSuite } from './idle-feed.suite.js'

idleFeedSuite(storeKinds(LOCAL_STORES))
