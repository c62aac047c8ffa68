import { storeKinds } from '../../../stores/harness.js'
import { ndjsonSuite } from './ndjson.suite.js'

ndjsonSuite(storeKinds(['postgres']))
