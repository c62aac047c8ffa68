import { LOCAL_STORES, conformanceKinds } from './harness.js'
import { unitOfWorkSuite } from './unit-of-work.suite.js'

unitOfWorkSuite(conformanceKinds(LOCAL_STORES))
