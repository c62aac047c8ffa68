import { storeKinds } from '../../../stores/harness.js'
import { csvListSuite } from './csv.suite.js'

csvListSuite(storeKinds(['postgres']))
