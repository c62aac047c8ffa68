import { storeKinds } from '../stores/harness.js'
import { filterDifferentialSuite } from './filter-differential.suite.js'

filterDifferentialSuite(storeKinds(['memory', 'sqlite', 'postgres']), 3000)
