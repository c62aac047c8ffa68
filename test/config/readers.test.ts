import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/config/errors.js'
import { basePath, duration, host, integer, size } from '../../src/config/readers.js'

describe('sizes (read by the bytes package)', () => {
  it.each([
    ['1048576', 1048576],
    ['512kb', 512 * 1024],
    ['1mb', 1024 * 1024],
    ['2 MB', 2 * 1024 * 1024],
    [' 16KB ', 16 * 1024],
    ['1.5kb', 1536],
    ['1gb', 1024 ** 3]
  ])('%j is %d bytes', (text, n) => {
    expect(size(text, '--body-limit')).toBe(n)
  })

  it.each([
    ['lots', 'must be a size such as 1048576, 512kb or 1mb, got "lots"'],
    ['12abc', 'must be a size such as 1048576, 512kb or 1mb, got "12abc"'],
    ['-1kb', 'must be a size such as 1048576, 512kb or 1mb, got "-1kb"'],
    ['0', 'must be at least 1 byte, got "0"'],
    ['0.5b', 'must be at least 1 byte, got "0.5b"'],
    ['99999999999pb', 'must be at least 1 byte, got "99999999999pb"']
  ])('%j is refused', (text, message) => {
    expect(() => size(text, '--body-limit')).toThrow(ConfigError)
    expect(() => size(text, '--body-limit')).toThrow(`--body-limit ${message}`)
  })
})

describe('integers within declared bounds', () => {
  const port = integer({ minimum: 0, maximum: 65535 })
  it('reads digits and names both bounds when over the maximum', () => {
    expect(port('0', '--port')).toBe(0)
    expect(port('65535', '--port')).toBe(65535)
    expect(() => port('65536', '--port')).toThrow('--port must be between 0 and 65535, got 65536')
    expect(() => port('-1', '--port')).toThrow('--port must be a non-negative integer, got "-1"')
  })

  it('names the minimum alone when there is no maximum, and refuses unsafe integers', () => {
    const pool = integer({ minimum: 1 })
    expect(() => pool('0', 'RQS_PG_POOL_SIZE')).toThrow('RQS_PG_POOL_SIZE must be at least 1')
    expect(() => pool('9007199254740993', '--pg-pool-size')).toThrow('--pg-pool-size is too large: "9007199254740993"')
  })
})

describe('base paths', () => {
  it('drops one trailing slash and refuses relative or doubled paths', () => {
    expect(basePath('/students/', '--students-base')).toBe('/students')
    expect(basePath('/', '--students-base')).toBe('/')
    expect(() => basePath('students', '--students-base')).toThrow('--students-base must be a path such as /students, got "students"')
    expect(() => basePath('/a//b', '--students-base')).toThrow(ConfigError)
  })

  it('resolves . and .. segments as a client would (issue 36): the path mounted is the path requests reach', () => {
    expect(basePath('/./app/x', '--students-base')).toBe('/app/x')
    expect(basePath('/app/x/.', '--students-base')).toBe('/app/x')
    expect(basePath('/people/../metrics', '--students-base')).toBe('/metrics')
    expect(basePath('/../..', '--students-base')).toBe('/')
    expect(basePath('/v1.0/.well', '--students-base')).toBe('/v1.0/.well')
  })
})

describe('hosts: checked for syntax, resolved only when listening', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['::', '::'],
    ['[::1]', '::1'],
    ['localhost', 'localhost'],
    ['db-1.example.org', 'db-1.example.org'],
    ['my_service', 'my_service']
  ])('%j is %j', (text, value) => {
    expect(host(text, '--host')).toBe(value)
  })

  it.each([
    ['999.1.1.1', 'must be an IPv4 address of four numbers from 0 to 255 (or a host name), got "999.1.1.1"'],
    ['1.2.3', 'must be an IPv4 address of four numbers from 0 to 255 (or a host name), got "1.2.3"'],
    ['example.123', 'must be an IPv4 address of four numbers from 0 to 255 (or a host name), got "example.123"'],
    ['my host', 'must be an IP address or a host name, got "my host"'],
    ['-bad.example', 'must be an IP address or a host name, got "-bad.example"'],
    ['a..b', 'must be an IP address or a host name, got "a..b"'],
    ['[::1', 'must be an IP address or a host name, got "[::1"'],
    ['', 'must be an IP address or a host name, got ""']
  ])('%j is refused', (text, message) => {
    expect(() => host(text, '--host')).toThrow(ConfigError)
    expect(() => host(text, '--host')).toThrow(`--host ${message}`)
  })
})

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['2500', 2500],
    [' 1h ', 3_600_000]
  ])('%j is %d ms', (text, ms) => {
    expect(duration()(text, '--x')).toBe(ms)
  })

  it.each([
    ['soon', 'must be a duration like 5s or 500ms, got "soon"'],
    ['1.5h', 'must be a duration like 5s or 500ms, got "1.5h"'],
    ['-1s', 'must be a duration like 5s or 500ms, got "-1s"'],
    ['1w', 'must be a duration like 5s or 500ms, got "1w"'],
    ['999999999999d', 'is too long: "999999999999d"'],
    ['10ms', 'must be at least 1s, got "10ms"']
  ])('%j is refused', (text, message) => {
    expect(() => duration({ minimum: 1000 })(text, '--x')).toThrow(ConfigError)
    expect(() => duration({ minimum: 1000 })(text, '--x')).toThrow(`--x ${message}`)
  })
})
