import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { StreamRegistry, type StreamRegistryOptions } from './registry.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Every long-lived stream of this server (the change feed's, GraphQL subscriptions): one budget, ended when their credential goes. */
    streams: StreamRegistry
  }
}

/** Decorates the server with its stream registry. Register it after the security plugin (it reads `app.authenticator`). */
async function streamsPlugin (app: FastifyInstance, limits: Pick<StreamRegistryOptions, 'maxStreams' | 'maxStreamsPerClient'>): Promise<void> {
  const registry = new StreamRegistry({ ...limits, authenticator: app.authenticator, log: app.log })
  app.decorate('streams', registry)
  app.addHook('onClose', async () => { registry.close() })
}

export const streams = fp(streamsPlugin, { name: 'rqs-streams', fastify: '5.x' })
