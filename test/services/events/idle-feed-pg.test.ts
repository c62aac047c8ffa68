import { storeKinds } from '../../stores/harness.js'
import { idleFeedSuite } from './idle-feed.suite.js'

idleFeedSuite(storeKinds(['postgres']))
