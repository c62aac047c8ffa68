import { Type } from '@sinclair/typebox'
import { optionGroup, type SectionOf } from '../../config/group.js'
import { option } from '../../config/option.js'

/**
 * `config.events`: the change feed at GET /events. On unless `--no-events`;
 * the timings are set only by code (tests, embedding).
 */
export const eventsOptions = optionGroup('events', Type.Object({
  enabled: option(Type.Boolean(), {
    default: true, flag: 'no-events', env: 'RQS_NO_EVENTS', negated: true, help: 'do not serve the change feed (GET /events, Server-Sent Events)'
  }),
  // A comment line this often keeps proxies from closing an idle stream and finds dead clients.
  heartbeatMs: option(Type.Integer({ minimum: 1 }), { default: 15_000 }),
  // The `retry:` hint: how long a client waits before reconnecting.
  retryMs: option(Type.Integer({ minimum: 0 }), { default: 2_000 })
}))

export type EventsConfig = SectionOf<typeof eventsOptions>
