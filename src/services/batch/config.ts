import { Type } from '@sinclair/typebox'
import { optionGroup, type SectionOf } from '../../config/group.js'
import { option } from '../../config/option.js'

/** The most requests one batch may hold by default. */
export const BATCH_MAX_REQUESTS = 100

/** `config.batch`: POST /batch, atomic batches of record requests. On unless `--no-batch`. */
export const batchOptions = optionGroup('batch', Type.Object({
  enabled: option(Type.Boolean(), {
    default: true, flag: 'no-batch', env: 'RQS_NO_BATCH', negated: true, help: 'do not serve POST /batch (atomic batches of record requests)'
  }),
  // A batch holds one transaction for all of its requests: bounded, so one client cannot hold it long.
  maxRequests: option(Type.Integer({ minimum: 1, maximum: 1000 }), {
    default: BATCH_MAX_REQUESTS, flag: 'batch-max-requests', value: 'n', env: 'RQS_BATCH_MAX_REQUESTS', help: `most requests one POST /batch may hold (default ${BATCH_MAX_REQUESTS})`
  })
}))

export type BatchConfig = SectionOf<typeof batchOptions>
