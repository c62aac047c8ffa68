import { describe, expect, it } from 'vitest'
import { ConfigError, resolveConfig } from '../../src/options.js'
import { runMain } from '../helpers/cli.js'

const PG = 'postgres://postgres@127.0.0.1:5432/rqs'

describe('store configuration', () => {
  it('defaults to the memory store', () => {
    expect(resolveConfig({}, {}).store).toEqual({ kind: 'memory', path: '', url: '', poolSize: 10, startupWaitMs: 0, changesRetentionMs: 86_400_000 })
  })

  it('reads --store as memory, sqlite:PATH or a postgres URL', () => {
    expect(resolveConfig({ store: 'sqlite:./data/rqs.db' }, {}).store).toMatchObject({ kind: 'sqlite', path: './data/rqs.db' })
    expect(resolveConfig({ store: PG }, {}).store).toMatchObject({ kind: 'postgres', url: PG })
    expect(resolveConfig({ store: 'postgresql://u@h/db' }, {}).store).toMatchObject({ kind: 'postgres', url: 'postgresql://u@h/db' })
    expect(resolveConfig({ store: 'memory' }, { DATABASE_URL: PG }).store.kind).toBe('memory')
  })

  it('lets DATABASE_URL select PostgreSQL only when neither --store nor RQS_STORE is given', () => {
    expect(resolveConfig({}, { DATABASE_URL: PG }).store).toMatchObject({ kind: 'postgres', url: PG })
    expect(resolveConfig({}, { DATABASE_URL: PG, RQS_STORE: 'sqlite:x.db' }).store).toMatchObject({ kind: 'sqlite', path: 'x.db' })
    expect(resolveConfig({ store: 'sqlite:y.db' }, { RQS_STORE: 'sqlite:x.db' }).store.path).toBe('y.db')
  })

  it('reads the pool size and the start-up wait', () => {
    const store = resolveConfig({ 'pg-pool-size': '3', 'store-wait': '1500' }, {}).store
    expect(store.poolSize).toBe(3)
    expect(store.startupWaitMs).toBe(1500)
    expect(resolveConfig({}, { RQS_PG_POOL_SIZE: '7', RQS_STORE_WAIT_MS: '9' }).store).toMatchObject({ poolSize: 7, startupWaitMs: 9 })
  })

  it('reads --student-ids count|sequence (absent: the spec\'s count rule)', () => {
    expect(resolveConfig({}, {}).students.ids).toBeUndefined()
    expect(resolveConfig({ 'student-ids': 'sequence' }, {}).students.ids).toBe('sequence')
    expect(resolveConfig({}, { RQS_STUDENT_IDS: 'count' }).students.ids).toBe('count')
    expect(resolveConfig({ 'student-ids': 'count' }, { RQS_STUDENT_IDS: 'sequence' }).students.ids).toBe('count')
    expect(() => resolveConfig({ 'student-ids': 'uuid' }, {})).toThrow(/--student-ids must be one of count, sequence/)
  })

  it('reads --changes-retention as a duration (default 24 h)', () => {
    expect(resolveConfig({}, {}).store.changesRetentionMs).toBe(86_400_000)
    expect(resolveConfig({ 'changes-retention': '30m' }, {}).store.changesRetentionMs).toBe(1_800_000)
    expect(resolveConfig({}, { RQS_CHANGES_RETENTION: '7d' }).store.changesRetentionMs).toBe(7 * 86_400_000)
    expect(resolveConfig({ 'changes-retention': '5000' }, { RQS_CHANGES_RETENTION: '1h' }).store.changesRetentionMs).toBe(5000)
    expect(() => resolveConfig({ 'changes-retention': 'a day' }, {})).toThrow('--changes-retention must be a duration like 5s or 500ms, got "a day"')
    expect(() => resolveConfig({}, { RQS_CHANGES_RETENTION: '500ms' })).toThrow('RQS_CHANGES_RETENTION must be at least 1s, got "500ms"')
  })

  it('refuses values it cannot use, naming the option', () => {
    expect(() => resolveConfig({ store: 'mysql://x' }, {})).toThrow(ConfigError)
    expect(() => resolveConfig({ store: 'sqlite:' }, {})).toThrow(/sqlite: needs a file path/)
    expect(() => resolveConfig({ store: 'postgres://[bad' }, {})).toThrow(/not a valid PostgreSQL URL/)
    expect(() => resolveConfig({}, { RQS_STORE: 'redis' })).toThrow(/RQS_STORE must be memory, sqlite:PATH or postgres/)
    expect(() => resolveConfig({ 'pg-pool-size': '0' }, {})).toThrow(/--pg-pool-size must be at least 1/)
  })

  it('rqs serve exits with code 2 on a bad --store', async () => {
    const { code, stderr } = await runMain(['serve', '--port', '0', '--store', 'oracle'])
    expect(code).toBe(2)
    expect(stderr).toContain('--store / RQS_STORE must be memory, sqlite:PATH or postgres://')
  })
})

describe('store precedence (written out in resolveStore)', () => {
  it('keeps only the chosen location: a DATABASE_URL that lost to --store leaves no url behind', () => {
    expect(resolveConfig({ store: 'sqlite:a.db' }, { DATABASE_URL: PG }).store).toEqual({ kind: 'sqlite', path: 'a.db', url: '', poolSize: 10, startupWaitMs: 0, changesRetentionMs: 86_400_000 })
    expect(resolveConfig({ 'database-url': PG }, {}).store).toMatchObject({ kind: 'postgres', url: PG })
  })

  it('still checks a DATABASE_URL that --store overrides', () => {
    expect(() => resolveConfig({ store: 'memory' }, { DATABASE_URL: 'nope' })).toThrow('--database-url / DATABASE_URL must be memory, sqlite:PATH or postgres://…, got "nope"')
  })
})
