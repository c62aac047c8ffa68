import { Type } from '@sinclair/typebox'
import { optionGroup, type SectionOf } from '../../config/group.js'
import { ConfigError } from '../../config/errors.js'
import { option } from '../../config/option.js'
import { duration } from '../../config/readers.js'
import type { ConnectionLimits } from '../../config/connections.js'

/**
 * `config.events`: the change feed at GET /events. On unless `--no-events`.
 * Its streams are bounded per client, in all and in age (issue 19; the
 * first two are the budget GraphQL subscriptions share, issue 36): an
 * open stream holds a connection, and connections are capped
 * (`--max-connections`), so streams alone must never take them all.
 * The timings are set only by code (tests, embedding).
 */
export const eventsOptions = optionGroup('events', Type.Object({
  enabled: option(Type.Boolean(), {
    default: true, flag: 'no-events', env: 'RQS_NO_EVENTS', negated: true, help: 'do not serve the change feed (GET /events, Server-Sent Events)'
  }),
  // Streams one client (its principal, else its address) may hold open at once; 0: no limit.
  maxStreamsPerClient: option(Type.Integer({ minimum: 0 }), {
    default: 8, flag: 'events-max-streams-per-client', value: 'n', env: 'RQS_EVENTS_MAX_STREAMS_PER_CLIENT', help: 'most change-feed streams and GraphQL subscriptions one client (its token, else its address) holds open together; more get 429 (default 8; 0: no limit)'
  }),
  // Streams open at once on this server; unset: half of --max-connections (see feedStreamCap).
  maxStreams: option(Type.Optional(Type.Integer({ minimum: 1 })), {
    flag: 'events-max-streams', value: 'n', env: 'RQS_EVENTS_MAX_STREAMS', help: 'most change-feed streams and GraphQL subscriptions open at once, below --max-connections; more get 503 (default half of --max-connections)'
  }),
  // How long a stream lasts before the server ends it; the client resumes with Last-Event-ID.
  maxStreamAgeMs: option(Type.Integer({ minimum: 0 }), {
    default: 3_600_000, flag: 'events-max-stream-age', value: 'duration', env: 'RQS_EVENTS_MAX_STREAM_AGE_MS', read: duration(), help: 'how long a change-feed stream lasts before the server ends it and the client resumes (default 1h; 0: no limit)'
  }),
  // A comment line this often keeps proxies from closing an idle stream and finds dead clients.
  heartbeatMs: option(Type.Integer({ minimum: 1 }), { default: 15_000 }),
  // The `retry:` hint: how long a client waits before reconnecting.
  retryMs: option(Type.Integer({ minimum: 0 }), { default: 2_000 })
}))

export type EventsConfig = SectionOf<typeof eventsOptions>

/**
 * Most streams open at once: `--events-max-streams`, else half the
 * connection cap (the other half stays for every other request), else
 * (no connection cap) no limit.
 */
export function feedStreamCap (events: EventsConfig, connections: ConnectionLimits): number {
  if (events.maxStreams !== undefined) return events.maxStreams
  return connections.maxConnections > 0 ? Math.max(1, Math.floor(connections.maxConnections / 2)) : Infinity
}

/** What the options cannot check one by one: streams must leave connections for other requests. Throws ConfigError. */
export function checkEventsConfig (events: EventsConfig, connections: ConnectionLimits): void {
  const cap = connections.maxConnections
  if (events.maxStreams !== undefined && cap > 0 && events.maxStreams >= cap) {
    throw new ConfigError(`--events-max-streams (${events.maxStreams}) must be below --max-connections (${cap}): streams holding every connection would leave none for other requests`)
  }
}
