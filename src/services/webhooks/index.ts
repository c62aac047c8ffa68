import type { ServiceDescriptor } from '../types.js'
import { ChangeFormat } from '../events/format.js'
import { collectionsNow } from '../collections/served-now.js'
import type { CollectionModel } from '../../records/index.js'
import { webhooksOptions } from './config.js'
import { Dispatcher } from './dispatcher.js'
import { WEBHOOK_ERRORS } from './errors.js'
import { WEBHOOKS_PATH, webhookRoutes } from './routes.js'

export { webhooksOptions, type WebhooksConfig } from './config.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The webhooks' dispatcher, when the webhooks service runs (tests wake it). */
    webhookDispatcher?: Dispatcher
  }
}

/**
 * Webhooks (issue 34): `/webhooks` registers receivers of the changes of the
 * record collections this server serves, and a dispatcher per server
 * delivers the change log to them, signed, retried, once per instance group.
 * Off unless `--webhooks`; its routes need the `admin` scope (loopback
 * callers only without authentication). docs/webhooks.md.
 */
export const webhooksService: ServiceDescriptor<typeof webhooksOptions> = {
  name: 'webhooks',
  options: webhooksOptions,
  errors: WEBHOOK_ERRORS,
  versions: [],
  enabled: (config) => config.webhooks.enabled,
  consumes: 'any',
  links: () => [{ rel: 'webhooks', href: WEBHOOKS_PATH, title: 'Webhooks: changes POSTed to other systems (admin)', type: 'application/json' }],
  tags: [{ name: 'webhooks', description: 'Webhooks: every create, replace and delete of the record collections POSTed, signed (Standard Webhooks), to registered URLs, with retries. Needs the admin scope (without authentication: callers on the server\'s machine only).' }],
  paths: () => [{ path: WEBHOOKS_PATH }],
  register: async (app, { config, stores, collections }) => {
    const store = stores.webhooks
    if (store === undefined) throw new Error('webhooks: this store keeps no webhooks')
    // The collections as they are now: with the admin API of collections, one created while the server
    // runs can be subscribed to, and a change is delivered with the fields its collection has when it is sent.
    const now = collectionsNow(app.collectionRegistry, collections)
    const models = { get: (name: string): CollectionModel | undefined => now.get(name)?.model }
    const dispatcher = new Dispatcher({
      store,
      changes: stores.changes,
      format: new ChangeFormat((name) => now.get(name)),
      models,
      config: config.webhooks,
      log: app.log,
      metrics: app.rqsMetrics
    })
    await dispatcher.start()
    app.addHook('preClose', async () => { await dispatcher.stop() })
    app.decorate('webhookDispatcher', dispatcher)
    await app.register(webhookRoutes, { store, changes: stores.changes, dispatcher, config: config.webhooks, collections: () => now.names(), models })
  }
}
