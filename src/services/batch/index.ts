import { authEnabled } from '../../config/security.js'
import type { ServiceDescriptor } from '../types.js'
import { BATCH_ERRORS } from './errors.js'
import { BATCH_MAX_REQUESTS, BATCH_PATH, batchRoutes } from './routes.js'
import { batchTargets } from './targets.js'

/**
 * POST /batch: record requests of any collections (students v2, addresses,
 * declared ones) in one transaction, all applied or none. It works on the
 * other services' collections, so it runs only while one of them does. No
 * option of its own (yet): at most BATCH_MAX_REQUESTS requests a batch.
 */
export const batchService: ServiceDescriptor = {
  name: 'batch',
  errors: BATCH_ERRORS,
  consumes: 'any',
  versions: [],
  enabled: () => true,
  links: () => [],
  tags: [{ name: 'batch', description: 'Atomic batches: requests of any record collections in one transaction, all applied or none.' }],
  paths: () => [{ path: BATCH_PATH }],
  register: async (app, { config, stores, links, collections }) => {
    const targets = batchTargets(collections, stores, links)
    await app.register(batchRoutes, { stores, targets, maxRequests: BATCH_MAX_REQUESTS, auth: authEnabled(config.security) })
  }
}
