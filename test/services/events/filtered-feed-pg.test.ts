import { storeKinds } from '../../stores/harness.js'
import { filteredFeedSuite } from './filtered-feed.suite.js'

filteredFeedSuite(storeKinds(['postgres']))
