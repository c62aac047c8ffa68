import { Type } from '@sinclair/typebox'
import { optionGroup, type SectionOf } from '../../config/group.js'
import { option } from '../../config/option.js'
import { ConfigError } from '../../config/errors.js'
import { duration, formatDuration, host, integer } from '../../config/readers.js'
import type { Reader } from '../../config/option.js'

/** `a.example,127.0.0.1,[::1]` → the names and addresses, each checked like --host. */
const hostList: Reader<string[]> = (value, name) => value.split(',').map((h) => h.trim()).filter((h) => h !== '').map((h) => host(h, name).toLowerCase())

/**
 * `config.webhooks` (issue 34): the webhooks API at /webhooks and the
 * dispatcher that delivers the change log to them. Off unless `--webhooks`.
 * The retry schedule and the dispatcher's pace have no flags: tests and
 * embedding set them.
 */
export const webhooksOptions = optionGroup('webhooks', Type.Object({
  enabled: option(Type.Boolean(), {
    default: false, flag: 'webhooks', env: 'RQS_WEBHOOKS', help: 'serve the webhooks API (/webhooks, admin scope) and deliver every change to the registered webhooks'
  }),
  // Receivers on loopback, private or link-local addresses are refused unless named here (host names or addresses).
  allowHosts: option(Type.Array(Type.String()), {
    default: [], flag: 'webhook-allow-hosts', value: 'hosts', env: 'RQS_WEBHOOK_ALLOW_HOSTS', read: hostList, help: 'host names or addresses webhooks may target although they are loopback, private or link-local, e.g. 127.0.0.1,hooks.internal (default none)'
  }),
  timeoutMs: option(Type.Integer({ minimum: 1 }), {
    default: 10_000, flag: 'webhook-timeout', value: 'duration', env: 'RQS_WEBHOOK_TIMEOUT_MS', read: duration({ minimum: 1 }), help: 'how long a webhook receiver has to answer before the attempt counts as failed (default 10s)'
  }),
  retryPeriodMs: option(Type.Integer({ minimum: 0 }), {
    default: 86_400_000, flag: 'webhook-retry-period', value: 'duration', env: 'RQS_WEBHOOK_RETRY_PERIOD_MS', read: duration(), help: 'how long a failing delivery is retried before it fails for good and disables its webhook (default 1d)'
  }),
  // The delay before the first retry; each next one doubles, up to retryMaxMs, with up to 20 % less as jitter.
  retryBaseMs: option(Type.Integer({ minimum: 1 }), { default: 5_000 }),
  retryMaxMs: option(Type.Integer({ minimum: 1 }), { default: 3_600_000 }),
  // How long a rotated-out secret still signs (both signatures are sent meanwhile).
  secretGraceMs: option(Type.Integer({ minimum: 0 }), { default: 86_400_000 }),
  // How often the dispatcher looks for due retries and for changes of other instances it was not told of.
  pollMs: option(Type.Integer({ minimum: 1 }), { default: 1_000 }),
  // Attempts at once per webhook and instance, each on its own kept-alive connection to the receiver.
  concurrency: option(Type.Integer({ minimum: 1, maximum: 256 }), {
    default: 16, flag: 'webhook-concurrency', value: 'n', env: 'RQS_WEBHOOK_CONCURRENCY', read: integer({ minimum: 1, maximum: 256 }), help: 'attempts at once per webhook and instance, over as many kept-alive connections to its receiver, 1 to 256 (default 16; 1 sends one change at a time)'
  }),
  // How long a claimed delivery is this instance's alone; longer than the timeout, so a live instance keeps it.
  leaseMs: option(Type.Integer({ minimum: 1 }), {
    default: 60_000, flag: 'webhook-lease', value: 'duration', env: 'RQS_WEBHOOK_LEASE_MS', read: duration({ minimum: 1 }), help: 'how long an instance holds a delivery it attempts; another instance takes it over after an instance died (default 60s, above --webhook-timeout)'
  }),
  // How long settled deliveries stay listed.
  historyMs: option(Type.Integer({ minimum: 0 }), { default: 7 * 86_400_000 })
}), (values) => {
  // A lease that ends before the attempt's timeout would let a second instance send what the first is still sending.
  if (values.leaseMs <= values.timeoutMs) {
    throw new ConfigError(`--webhook-lease (${formatDuration(values.leaseMs)}) must be longer than --webhook-timeout (${formatDuration(values.timeoutMs)}), or two instances could attempt one delivery at once`)
  }
  return values
})

export type WebhooksConfig = SectionOf<typeof webhooksOptions>
