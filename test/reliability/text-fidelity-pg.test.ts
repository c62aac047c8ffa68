import { storeKinds } from '../stores/harness.js'
import { textFidelitySuite } from './text-fidelity.suite.js'

textFidelitySuite(storeKinds(['postgres']))
