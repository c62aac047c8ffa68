import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/config.js'
import { makeConfig, resolveConfig, type ConfigOverrides } from '../../src/options.js'
import { enabledServices } from '../../src/services/index.js'
import { refuseOverlappingPaths } from '../../src/services/paths.js'
import type { ServiceDescriptor } from '../../src/services/types.js'
import { notesService } from '../fixtures/notes-service.js'

function check (overrides: ConfigOverrides, extra: ServiceDescriptor[] = []): void {
  const config = makeConfig(overrides)
  refuseOverlappingPaths(config, [...enabledServices(config), ...extra])
}

describe('service paths that overlap are refused at start', () => {
  // Issue 36: `/./app/x` was mounted literally and passed; a base is normalised before the check.
  it.each([
    ['students-base', '/./app/x', 'students at /app/x (--students-base) overlaps app at /app: choose another --students-base'],
    ['students-base', '/people/../metrics', "students at /metrics (--students-base) overlaps the server's own /metrics: choose another --students-base"],
    ['addresses-base', '/x/../docs', "addresses at /docs/addresses (--addresses-base) overlaps the server's own /docs: choose another --addresses-base"]
  ])('--%s %s is resolved before the check', (option, base, message) => {
    const config = resolveConfig({ [option]: base }, {})
    expect(() => { refuseOverlappingPaths(config, enabledServices(config)) }).toThrow(message)
  })

  it('the defaults, the student service at the root, and bases of their own pass', () => {
    expect(() => { check({}) }).not.toThrow()
    expect(() => { check({ students: { base: '/' } }) }).not.toThrow()
    expect(() => { check({ students: { base: '/' }, addresses: { base: '/' }, albums: { base: '/' } }) }).not.toThrow()
    expect(() => { check({ students: { base: '/people' }, addresses: { base: '/book' }, albums: { base: '/music' } }) }).not.toThrow()
    expect(() => { check({ students: { base: '/api/students' }, addresses: { base: '/api' }, albums: { base: '/api' } }) }).not.toThrow()
    // Only a path's segments count: /documents is not under /docs.
    expect(() => { check({ students: { base: '/documents' }, addresses: { base: '/applications' } }) }).not.toThrow()
  })

  it.each([
    [{ students: { base: '/app/students' } }, 'students at /app/students (--students-base) overlaps app at /app: choose another --students-base'],
    [{ students: { base: '/docs/students' } }, "students at /docs/students (--students-base) overlaps the server's own /docs: choose another --students-base"],
    [{ students: { base: '/errors/x' } }, "students at /errors/x (--students-base) overlaps the server's own /errors: choose another --students-base"],
    [{ students: { base: '/healthz' } }, "students at /healthz (--students-base) overlaps the server's own /healthz: choose another --students-base"],
    [{ students: { base: '/metrics' } }, "students at /metrics (--students-base) overlaps the server's own /metrics: choose another --students-base"],
    [{ students: { base: '/openapi.json' } }, "students at /openapi.json (--students-base) overlaps the server's own /openapi.json: choose another --students-base"],
    [{ students: { base: '/events' } }, 'students at /events (--students-base) overlaps events at /events: choose another --students-base'],
    [{ students: { base: '/graphiql' } }, 'students at /graphiql (--students-base) overlaps albums at /graphiql (--albums-base): move one with --students-base or --albums-base'],
    [{ students: { base: '/v1' } }, 'students at /v1 (--students-base) is under /v1, where URI versioning puts every service\'s versions: choose another --students-base'],
    [{ students: { base: '/v3/students' } }, 'students at /v3/students (--students-base) is under /v3, where URI versioning puts every service\'s versions: choose another --students-base'],
    [{ addresses: { base: '/docs' } }, "addresses at /docs/addresses (--addresses-base) overlaps the server's own /docs: choose another --addresses-base"],
    [{ albums: { base: '/app' } }, 'albums at /app/graphql (--albums-base) overlaps app at /app: choose another --albums-base'],
    // A service's base holds another's paths.
    [{ students: { base: '/addresses' } }, 'students at /addresses (--students-base) overlaps addresses at /addresses (--addresses-base): move one with --students-base or --addresses-base'],
    [{ students: { base: '/x' }, albums: { base: '/x' } }, 'students at /x (--students-base) overlaps albums at /x/graphql (--albums-base): move one with --students-base or --albums-base'],
    [{ students: { base: '/' }, addresses: { base: '/assets' } }, 'students at /assets (--students-base) overlaps addresses at /assets/addresses (--addresses-base): move one with --students-base or --addresses-base']
  ] as Array<[ConfigOverrides, string]>)('%j: %s', (overrides, message) => {
    expect(() => { check(overrides) }).toThrow(new ConfigError(message))
  })

  it('a service that is off claims nothing', () => {
    expect(() => { check({ students: { base: '/app/students' }, addresses: { enabled: false }, events: { enabled: false } }) }).toThrow(/overlaps app/)
    expect(() => { check({ students: { base: '/graphql' }, albums: { enabled: false } }) }).not.toThrow()
  })

  it('covers services added through buildServer too', () => {
    expect(() => { check({ students: { base: '/notes' } }, [notesService()]) }).toThrow(new ConfigError('students at /notes (--students-base) overlaps notes at /notes: choose another --students-base'))
  })
})
