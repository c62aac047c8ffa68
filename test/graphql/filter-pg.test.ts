import { storeKinds } from '../stores/harness.js'
import { graphqlFilterSuite } from './filter.suite.js'

graphqlFilterSuite(storeKinds(['postgres']))
