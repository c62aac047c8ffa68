import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, OPTIONS, resolveConfig, type Config } from '../../src/options.js'
import { readConfigFile } from '../../src/config/file.js'

/** Every time option `rqs serve` has: its flag, its variable and where its value lands, in ms. */
/** Options a test of one of them sets beside it (a webhook's lease must outlast its timeout, whatever either is). */
const BESIDE: Readonly<Record<string, Record<string, string>>> = { 'webhook-timeout': { 'webhook-lease': '2h' }, 'webhook-lease': { 'webhook-timeout': '1ms' } }

const TIME_OPTIONS: ReadonlyArray<[flag: string, env: string, read: (c: Config) => number]> = [
  ['shutdown-timeout', 'RQS_SHUTDOWN_TIMEOUT_MS', (c) => c.shutdownTimeoutMs],
  ['events-max-stream-age', 'RQS_EVENTS_MAX_STREAM_AGE_MS', (c) => c.events.maxStreamAgeMs],
  ['store-wait', 'RQS_STORE_WAIT_MS', (c) => c.store.startupWaitMs],
  ['changes-retention', 'RQS_CHANGES_RETENTION', (c) => c.store.changesRetentionMs],
  ['max-event-loop-delay', 'RQS_MAX_EVENT_LOOP_DELAY_MS', (c) => c.security.maxEventLoopDelayMs],
  ['headers-timeout', 'RQS_HEADERS_TIMEOUT_MS', (c) => c.connections.headersTimeoutMs],
  ['body-timeout', 'RQS_BODY_TIMEOUT_MS', (c) => c.connections.bodyTimeoutMs],
  ['handler-timeout', 'RQS_HANDLER_TIMEOUT_MS', (c) => c.connections.handlerTimeoutMs],
  ['read-budget', 'RQS_READ_BUDGET_MS', (c) => c.connections.readBudgetMs],
  ['keep-alive-timeout', 'RQS_KEEP_ALIVE_TIMEOUT_MS', (c) => c.connections.keepAliveTimeoutMs],
  ['webhook-timeout', 'RQS_WEBHOOK_TIMEOUT_MS', (c) => c.webhooks.timeoutMs],
  ['webhook-retry-period', 'RQS_WEBHOOK_RETRY_PERIOD_MS', (c) => c.webhooks.retryPeriodMs],
  ['webhook-lease', 'RQS_WEBHOOK_LEASE_MS', (c) => c.webhooks.leaseMs]
]

const dir = mkdtempSync(join(tmpdir(), 'rqs-durations-'))
afterAll(() => { rmSync(dir, { recursive: true, force: true }) })

let files = 0
function fromFile (values: Record<string, unknown>): Config {
  const path = join(dir, `rqs-${files++}.json`)
  writeFileSync(path, JSON.stringify(values))
  return resolveConfig({}, {}, readConfigFile(path, OPTIONS))
}

describe('every time option reads a duration', () => {
  it('lists exactly the options whose value is a time (the table above is complete)', () => {
    const timed = OPTIONS.filter((o) => /timeout|wait|age$|retention|delay|interval|ttl|period|lease|budget/.test(o.flag)).map((o) => o.flag)
    expect(timed.sort()).toEqual(TIME_OPTIONS.map(([flag]) => flag).sort())
    for (const o of OPTIONS) {
      // One placeholder for them all in --help, and no option left taking bare milliseconds only.
      expect(o.value === 'duration', o.flag).toBe(timed.includes(o.flag))
      expect(o.value, o.flag).not.toBe('ms')
    }
  })

  describe.each(TIME_OPTIONS)('--%s / %s', (flag, env, read) => {
    const beside = BESIDE[flag] ?? {}
    // 1500ms rather than 500ms: --changes-retention's least is 1s.
    it('takes 1500ms, 5s, 2m and 1h on the command line', () => {
      expect(read(resolveConfig({ ...beside, [flag]: '1500ms' }, {}))).toBe(1500)
      expect(read(resolveConfig({ ...beside, [flag]: '5s' }, {}))).toBe(5000)
      expect(read(resolveConfig({ ...beside, [flag]: '2m' }, {}))).toBe(120_000)
      expect(read(resolveConfig({ ...beside, [flag]: '1h' }, {}))).toBe(3_600_000)
    })

    it('keeps a bare integer in milliseconds, as before', () => {
      expect(read(resolveConfig({ ...beside, [flag]: '2500' }, {}))).toBe(2500)
      expect(read(resolveConfig(beside, { [env]: '2500' }))).toBe(2500)
    })

    it('takes a duration in its environment variable', () => {
      expect(read(resolveConfig(beside, { [env]: '5s' }))).toBe(5000)
      expect(read(resolveConfig({ ...beside, [flag]: '3s' }, { [env]: '5s' }))).toBe(3000)
    })

    it('takes a string duration or a number of ms in the configuration file', () => {
      expect(read(fromFile({ ...beside, [flag]: '2m' }))).toBe(120_000)
      expect(read(fromFile({ ...beside, [flag]: 1500 }))).toBe(1500)
    })

    it('refuses anything else, naming where the value came from and showing an example', () => {
      expect(() => resolveConfig({ ...beside, [flag]: 'five' }, {})).toThrow(ConfigError)
      expect(() => resolveConfig({ ...beside, [flag]: 'five' }, {})).toThrow(`--${flag} must be a duration like 5s or 500ms, got "five"`)
      expect(() => resolveConfig({ ...beside, [flag]: '1.5s' }, {})).toThrow(`--${flag} must be a duration like 5s or 500ms, got "1.5s"`)
      expect(() => resolveConfig({ ...beside, [flag]: '-5s' }, {})).toThrow(`--${flag} must be a duration like 5s or 500ms, got "-5s"`)
      expect(() => resolveConfig(beside, { [env]: '5 sec' })).toThrow(`${env} must be a duration like 5s or 500ms, got "5 sec"`)
      expect(() => fromFile({ ...beside, [flag]: 'soon' })).toThrow(/ in .*rqs-\d+\.json must be a duration like 5s or 500ms, got "soon"/)
      expect(() => fromFile({ ...beside, [flag]: true })).toThrow(ConfigError)
    })
  })

  it('the issue\'s own command line: --store-wait 5s and --shutdown-timeout 5s', () => {
    const config = resolveConfig({ 'store-wait': '5s', 'shutdown-timeout': '5s', 'headers-timeout': '10s' }, {})
    expect([config.store.startupWaitMs, config.shutdownTimeoutMs, config.connections.headersTimeoutMs]).toEqual([5000, 5000, 10_000])
    expect(() => resolveConfig({ 'store-wait': 'five' }, {})).toThrow('--store-wait must be a duration like 5s or 500ms, got "five"')
  })

  it('keeps each option\'s bounds, stated as durations', () => {
    expect(() => resolveConfig({ 'changes-retention': '500ms' }, {})).toThrow('--changes-retention must be at least 1s, got "500ms"')
    expect(() => resolveConfig({ 'max-event-loop-delay': '0' }, {})).toThrow('--max-event-loop-delay must be at least 1ms, got "0"')
    // A Node timer cannot wait longer: it would fire at once and cut every request short.
    expect(() => resolveConfig({ 'shutdown-timeout': '30d' }, {})).toThrow('--shutdown-timeout must be at most 2147483647ms, got "30d"')
  })
})
