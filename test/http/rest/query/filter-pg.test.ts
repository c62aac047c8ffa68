import { storeKinds } from '../../../stores/harness.js'
import { filterListSuite } from './filter.suite.js'

filterListSuite(storeKinds(['postgres']))
