import type { CollectionAccess, RecordStores } from '../../domain/index.js'
import type { CollectionModel } from '../../records/index.js'
import { collectionsNow, type ByName, type CollectionsNow } from '../collections/served-now.js'
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
    // The collections as they are when each change is sent or each stream opens: with the admin API of
    // collections, one created while the server runs is carried, and a field added is in later messages.
    const now = collectionsNow(app.collectionRegistry, collections)
    const hub = await ChangeHub.open(stores.changes, {
      heartbeatMs,
      retryMs,
      maxStreamAgeMs,
      format: new ChangeFormat((name) => now.get(name)),
      // The server's one stream budget (src/server.ts sets it from these options), shared with GraphQL subscriptions.
      registry: app.streams,
      log: app.log
    })
    // Open streams would keep the server from closing: end them first; clients reconnect.
    app.addHook('preClose', async () => { hub.close() })
    app.decorate('changeFeed', hub)
    await app.register(eventsRoutes, {
      hub,
      collections: now,
      models: { get: (name): CollectionModel | undefined => now.get(name)?.model },
      access: accessOf(now, stores),
      maxStreams: app.streams.maxStreams,
      maxStreamsPerClient: app.streams.maxStreamsPerClient
    })
  }
}

/** The rules of a collection of the feed that declares them, as its store holds them now. */
function accessOf (now: CollectionsNow, stores: RecordStores): ByName<CollectionAccess> {
  return { get: (name) => now.get(name) === undefined ? undefined : stores.collections.get(name)?.declaration.access }
}
