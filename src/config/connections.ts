import { Type, type Static } from '@sinclair/typebox'
import { option } from './option.js'
import { duration } from './readers.js'

/**
 * `config.connections`: bounded time for every phase of a request and a cap
 * on open connections (issue 10; applied in src/http/timeouts.ts). A limit of
 * 0 turns it off. Durations take `10s`, `500ms` or bare milliseconds.
 */
export const connectionsOptions = Type.Object({
  // For the request line and headers to arrive.
  headersTimeoutMs: option(Type.Integer({ minimum: 0 }), {
    default: 10_000, flag: 'headers-timeout', value: 'duration', env: 'RQS_HEADERS_TIMEOUT_MS', read: duration(), help: 'time for a request line and headers to arrive, e.g. 5s, else 408 and close (default 10s; 0: none)'
  }),
  // For the body to arrive once the headers are in (408 in the service's shape).
  bodyTimeoutMs: option(Type.Integer({ minimum: 0 }), {
    default: 30_000, flag: 'body-timeout', value: 'duration', env: 'RQS_BODY_TIMEOUT_MS', read: duration(), help: 'time for a request body to arrive after its headers, e.g. 1m, else 408 and close (default 30s; 0: none)'
  }),
  // From routing to the answer, body included (503 PROCESSING_TIMEOUT).
  handlerTimeoutMs: option(Type.Integer({ minimum: 0 }), {
    default: 60_000, flag: 'handler-timeout', value: 'duration', env: 'RQS_HANDLER_TIMEOUT_MS', read: duration(), help: 'time from routing to the answer, body included, e.g. 2m, else 503 (default 60s; 0: none)'
  }),
  // The time one read of a store may take (a page, a count, an aggregate, one batch of a stream): else 503 STORE_TIMEOUT.
  readBudgetMs: option(Type.Integer({ minimum: 0 }), {
    default: 30_000, flag: 'read-budget', value: 'duration', env: 'RQS_READ_BUDGET_MS', read: duration(), help: 'time one store read may take (a page, a count, an aggregate), e.g. 5s, else 503 (default 30s; 0: none)'
  }),
  // How long an idle keep-alive connection stays open.
  keepAliveTimeoutMs: option(Type.Integer({ minimum: 0 }), {
    default: 5_000, flag: 'keep-alive-timeout', value: 'duration', env: 'RQS_KEEP_ALIVE_TIMEOUT_MS', read: duration(), help: 'time an idle keep-alive connection stays open, e.g. 500ms or 30s (default 5s)'
  }),
  // Beyond this many open connections per process, new ones are closed at once.
  maxConnections: option(Type.Integer({ minimum: 0 }), {
    default: 4096, flag: 'max-connections', value: 'n', env: 'RQS_MAX_CONNECTIONS', help: 'most open connections per process; more are closed at once (default 4096; 0: no cap)'
  })
})

export type ConnectionLimits = Static<typeof connectionsOptions>
