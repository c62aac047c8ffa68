import { describe, expect, it } from 'vitest'
import { API_VERSIONS, ConfigError, DEFAULT_ASSETS_DIR, DEFAULT_GRAPHIQL_DIR, defaultConfig, makeConfig, OPTIONS, resolveConfig } from '../src/options.js'
import { SERVICES } from '../src/services/index.js'

describe('configuration from one declaration', () => {
  it('defaults to the spec\'s behaviour, in the shape the server reads', () => {
    expect(defaultConfig()).toEqual({
      port: 8080,
      host: '127.0.0.1',
      logLevel: 'info',
      accessLog: false,
      bodyLimit: 1024 * 1024,
      shutdownTimeoutMs: 10_000,
      seed: [],
      students: { enabled: true, base: '/students', assetsDir: DEFAULT_ASSETS_DIR },
      addresses: { enabled: true, base: '/' },
      collections: { declared: [] },
      versioning: { vendor: 'rqs', mediaType: true, uri: true, deprecated: [] },
      albums: {
        enabled: true, base: '', maxDepth: 20, maxFields: 500, maxAliases: 30,
        maxCost: 100_000, maxDocumentBytes: 16 * 1024,
        introspection: true, documentCacheSize: 1000, graphiqlDir: DEFAULT_GRAPHIQL_DIR
      },
      events: { enabled: true, maxStreamsPerClient: 8, maxStreamAgeMs: 3_600_000, heartbeatMs: 15_000, retryMs: 2_000 },
      // Issue 34: webhooks off.
      webhooks: {
        enabled: false, allowHosts: [], timeoutMs: 10_000, retryPeriodMs: 86_400_000, retryBaseMs: 5_000, retryMaxMs: 3_600_000,
        secretGraceMs: 86_400_000, pollMs: 1_000, leaseMs: 60_000, concurrency: 16, historyMs: 7 * 86_400_000
      },
      store: { kind: 'memory', path: '', url: '', poolSize: 10, startupWaitMs: 0, changesRetentionMs: 24 * 60 * 60 * 1000 },
      // Issue 11: every security and operations feature off; issue 19: the protective headers and a failure budget on.
      security: {
        authJwksCooldownMs: 30_000, authFailureLimit: { max: 30, windowMs: 60_000 }, authPublicRead: false, protectiveHeaders: true, securityHeaders: false, trustProxy: false, overload: false,
        maxEventLoopDelayMs: 1000, maxHeapUsedBytes: 0, maxRssBytes: 0, overloadSampleIntervalMs: 1000, metrics: false, auditLog: false, adminAnyAddress: false
      },
      connections: { headersTimeoutMs: 10_000, bodyTimeoutMs: 30_000, handlerTimeoutMs: 60_000, readBudgetMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 4096 }
    })
  })

  it('gives every setting the precedence flag > environment variable > default', () => {
    expect(resolveConfig({ port: '1' }, { PORT: '2' }).port).toBe(1)
    expect(resolveConfig({}, { PORT: '2' }).port).toBe(2)
    expect(resolveConfig({ 'graphql-max-depth': '3' }, { RQS_GRAPHQL_MAX_DEPTH: '4' }).albums.maxDepth).toBe(3)
    expect(resolveConfig({}, { RQS_GRAPHQL_MAX_DEPTH: '4' }).albums.maxDepth).toBe(4)
    // A switch given as a flag wins over its variable saying the opposite.
    expect(resolveConfig({ 'no-uri-versioning': true }, { RQS_NO_URI_VERSIONING: 'false' }).versioning.uri).toBe(false)
    expect(resolveConfig({}, { RQS_NO_URI_VERSIONING: 'false' }).versioning.uri).toBe(true)
    expect(resolveConfig({}, { RQS_NO_URI_VERSIONING: 'yes' }).versioning.uri).toBe(false)
    expect(resolveConfig({ 'no-events': true }, {}).events.enabled).toBe(false)
  })

  it('reads versions and dates for deprecation signalling', () => {
    const versioning = resolveConfig({ deprecate: 'v1,2', 'deprecated-since': '2026-12-01', sunset: '2027-06-30T00:00:00Z' }, {}).versioning
    expect(versioning).toMatchObject({ deprecated: [1, 2], deprecatedSince: new Date('2026-12-01'), sunset: new Date('2027-06-30T00:00:00Z') })
    expect(() => resolveConfig({ deprecate: '0' }, {})).toThrow('--deprecate must list versions such as 1 or 1,2, got "0"')
    expect(() => resolveConfig({}, { RQS_SUNSET: 'soon' })).toThrow('RQS_SUNSET must be an ISO 8601 date such as 2027-06-30, got "soon"')
    expect(() => resolveConfig({ vendor: 'Acme' }, {})).toThrow('--vendor must be lower-case letters, digits, dots and dashes, got "Acme"')
  })

  it('names the variable, not the flag, when a bad value comes from the environment', () => {
    expect(() => resolveConfig({}, { RQS_PG_POOL_SIZE: '0' })).toThrow('RQS_PG_POOL_SIZE must be at least 1')
    expect(() => resolveConfig({}, { RQS_ACCESS_LOG: 'maybe' })).toThrow('RQS_ACCESS_LOG must be true or false, got "maybe"')
  })

  it('refuses a flag that needs a value but has none', () => {
    expect(() => resolveConfig({ port: true }, {})).toThrow(ConfigError)
    expect(() => resolveConfig({ port: true }, {})).toThrow('--port needs a value')
  })

  it('gives every configuration its own copy of the defaults', () => {
    defaultConfig().versioning.deprecated.push(1)
    expect(defaultConfig().versioning.deprecated).toEqual([])
  })

  it('lists every option once for --help and the parser, each flag and variable unique', () => {
    const flags = OPTIONS.map((o) => o.flag)
    const variables = OPTIONS.flatMap((o) => o.env ?? [])
    expect(new Set(flags).size).toBe(flags.length)
    expect(new Set(variables).size).toBe(variables.length)
    expect(flags).toEqual(expect.arrayContaining(['port', 'store', 'database-url', 'no-albums', 'graphql-max-document-size']))
    expect(OPTIONS.find((o) => o.flag === 'port')).toMatchObject({ env: 'PORT', takesValue: true })
    expect(OPTIONS.find((o) => o.flag === 'no-students')).toMatchObject({ env: 'RQS_NO_STUDENTS', takesValue: false, value: undefined })
    expect(OPTIONS.find((o) => o.flag === 'port')).toMatchObject({ short: 'p', value: 'n' })
    expect(OPTIONS.find((o) => o.flag === 'host')).toMatchObject({ short: 'H', value: 'address' })
    for (const o of OPTIONS) expect(o.help).not.toBe('')
    // Settings only code sets have no flag.
    expect(flags).not.toContain('graphiql-dir')
  })
})

describe('every option on the command line, in the environment and in a file', () => {
  it('has an environment variable for every flag, and a placeholder for every value', () => {
    for (const o of OPTIONS) {
      expect(o.env, `--${o.flag}`).toMatch(/^[A-Z][A-Z0-9_]*$/)
      expect(o.takesValue ? o.value : 'switch', `--${o.flag}`).toMatch(/^[a-z]+$/)
    }
    // Short forms are few and unique (and never -h or -v, which are help and version).
    const shorts = OPTIONS.flatMap((o) => o.short ?? [])
    expect(new Set(shorts).size).toBe(shorts.length)
    expect(shorts).not.toContain('h')
    expect(shorts).not.toContain('v')
  })

  it('turns the services off by variable as by flag', () => {
    const config = resolveConfig({}, { RQS_NO_STUDENTS: 'true', RQS_NO_ADDRESSES: '1', RQS_NO_ALBUMS: 'yes' })
    expect([config.students.enabled, config.addresses.enabled, config.albums.enabled]).toEqual([false, false, false])
    expect(resolveConfig({}, { RQS_NO_ALBUMS: 'false' }).albums.enabled).toBe(true)
  })
})

describe('--deprecate: only versions that exist', () => {
  it('declares exactly the versions the services have', () => {
    const versions = [...new Set(SERVICES.flatMap((s) => s.versions))].sort((a, b) => a - b)
    expect(API_VERSIONS).toEqual(versions)
  })

  it('refuses a version no service has, naming the ones there are', () => {
    expect(resolveConfig({ deprecate: '1' }, {}).versioning.deprecated).toEqual([1])
    expect(() => resolveConfig({ deprecate: '5' }, {})).toThrow('--deprecate: there is no version 5; the versions are 1, 2')
    expect(() => resolveConfig({}, { RQS_DEPRECATE: '1,3' })).toThrow('RQS_DEPRECATE: there is no version 3; the versions are 1, 2')
  })
})

describe('makeConfig (tests and embedding)', () => {
  it('replaces top-level settings and merges a section field by field', () => {
    const config = makeConfig({ port: 0, albums: { maxDepth: 3 }, store: { kind: 'sqlite', path: 'x.db' } })
    expect(config.port).toBe(0)
    expect(config.host).toBe('127.0.0.1')
    expect(config.albums).toMatchObject({ maxDepth: 3, maxFields: 500, enabled: true })
    expect(config.store).toEqual({ kind: 'sqlite', path: 'x.db', url: '', poolSize: 10, startupWaitMs: 0, changesRetentionMs: 86_400_000 })
  })
})
