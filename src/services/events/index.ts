import type { ChangedCollection } from '../../stores/types.js'
import type { ServiceDescriptor } from '../types.js'
import { feedStreamCap } from './config.js'
import { ChangeHub } from './hub.js'
import { EVENT_STREAM, EVENTS_PATH, eventsRoutes } from './routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The change feed's fan-out, when the feed is served (tests read its subscriber count). */
    changeFeed?: ChangeHub
  }
}

/** The record services whose changes the feed carries on this server. */
function feedServices (config: Parameters<ServiceDescriptor['enabled']>[0]): ChangedCollection[] {
  return [...(config.students.enabled ? ['students' as const] : []), ...(config.addresses.enabled ? ['addresses' as const] : [])]
}

/**
 * The change feed: every create, replace and delete of a student or an
 * address, through any version or instance, as Server-Sent Events at
 * /events. The web application subscribes when the directory links it.
 */
export const eventsService: ServiceDescriptor = {
  name: 'events',
  versions: [],
  enabled: (config) => config.events.enabled && feedServices(config).length > 0,
  links: () => [{ rel: 'events', href: EVENTS_PATH, title: 'Change feed (Server-Sent Events)', type: EVENT_STREAM }],
  tags: [{ name: 'events', description: 'Change feed: creates, replaces and deletes of students and addresses as Server-Sent Events, resumable with Last-Event-ID.' }],
  register: async (app, { config, stores }) => {
    const { heartbeatMs, retryMs, maxStreamsPerClient, maxStreamAgeMs } = config.events
    const maxStreams = feedStreamCap(config.events, config.connections)
    const hub = await ChangeHub.open(stores.changes, {
      heartbeatMs,
      retryMs,
      maxStreams,
      maxStreamsPerClient,
      maxStreamAgeMs,
      // Set by the security plugin, registered before the services, when authentication is on.
      authenticator: app.authenticator,
      log: app.log
    })
    // Open streams would keep the server from closing: end them first; clients reconnect.
    app.addHook('preClose', async () => { hub.close() })
    app.decorate('changeFeed', hub)
    await app.register(eventsRoutes, { hub, services: feedServices(config), maxStreams, maxStreamsPerClient })
  }
}
