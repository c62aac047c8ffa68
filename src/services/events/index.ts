import type { CollectionAccess, RecordStores } from '../../domain/index.js'
import type { ServedCollection } from '../../data/collection.js'
import type { ServiceDescriptor } from '../types.js'
import { eventsOptions } from './config.js'
import { FEED_ERRORS } from './errors.js'
import { ChangeFormat } from './format.js'
import { ChangeHub } from './hub.js'
import { EVENT_STREAM, EVENTS_PATH, eventsRoutes } from './routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The change feed's fan-out, when the feed is served (tests read its subscriber count). */
    changeFeed?: ChangeHub
  }
}

/**
 * The change feed: every create, replace and delete in the record
 * collections of the services this server runs (students, addresses),
 * through any version or instance, as Server-Sent Events at /events. The web
 * application subscribes when the directory links it.
 */
export const eventsService: ServiceDescriptor<typeof eventsOptions> = {
  name: 'events',
  options: eventsOptions,
  errors: FEED_ERRORS,
  versions: [],
  enabled: (config) => config.events.enabled,
  consumes: 'any',
  links: () => [{ rel: 'events', href: EVENTS_PATH, title: 'Change feed (Server-Sent Events)', type: EVENT_STREAM }],
  tags: [{ name: 'events', description: 'Change feed: creates, replaces and deletes of the record services\' records (students, addresses) as Server-Sent Events, resumable with Last-Event-ID.' }],
  paths: () => [{ path: EVENTS_PATH }],
  register: async (app, { config, stores, collections }) => {
    const { heartbeatMs, retryMs, maxStreamAgeMs } = config.events
    const hub = await ChangeHub.open(stores.changes, {
      heartbeatMs,
      retryMs,
      maxStreamAgeMs,
      format: new ChangeFormat(collections),
      // The server's one stream budget (src/server.ts sets it from these options), shared with GraphQL subscriptions.
      registry: app.streams,
      log: app.log
    })
    // Open streams would keep the server from closing: end them first; clients reconnect.
    app.addHook('preClose', async () => { hub.close() })
    app.decorate('changeFeed', hub)
    await app.register(eventsRoutes, { hub, services: collections.map((c) => c.name), schemas: collections, models: new Map(collections.map((c) => [c.name, c.model])), access: accessOf(collections, stores), maxStreams: app.streams.maxStreams, maxStreamsPerClient: app.streams.maxStreamsPerClient })
  }
}

/** The rules of the feed's collections that declare them, by name. */
function accessOf (collections: readonly ServedCollection[], stores: RecordStores): ReadonlyMap<string, CollectionAccess> {
  const access = new Map<string, CollectionAccess>()
  for (const { name } of collections) {
    const rules = stores.collections.get(name)?.declaration.access
    if (rules !== undefined) access.set(name, rules)
  }
  return access
}
