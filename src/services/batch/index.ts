import { authEnabled } from '../../config/security.js'
import type { ServiceDescriptor } from '../types.js'
import { batchOptions } from './config.js'
import { BATCH_ERRORS } from './errors.js'
import { BATCH_PATH, batchRoutes } from './routes.js'
import { batchTargets } from './targets.js'

export { batchOptions, type BatchConfig } from './config.js'

/**
 * POST /batch: record requests of any collections (students v2, addresses,
 * declared ones) in one transaction, all applied or none. It works on the
 * other services' collections, so it runs only while one of them does.
 */
export const batchService: ServiceDescriptor<typeof batchOptions> = {
  name: 'batch',
  options: batchOptions,
  errors: BATCH_ERRORS,
  consumes: 'any',
  versions: [],
  enabled: (config) => config.batch.enabled,
  links: () => [],
  tags: [{ name: 'batch', description: 'Atomic batches: requests of any record collections in one transaction, all applied or none.' }],
  paths: () => [{ path: BATCH_PATH }],
  register: async (app, { config, stores, links, collections }) => {
    const targets = batchTargets(collections, stores, links)
    await app.register(batchRoutes, { stores, targets, maxRequests: config.batch.maxRequests, auth: authEnabled(config.security) })
  }
}
