import { describe, expect, it } from 'vitest'
import { ConfigError, resolveConfig } from '../../../src/options.js'

describe('album service configuration', () => {
  it('flags and environment variables fill config.albums', () => {
    const config = resolveConfig({
      'albums-base': '/music/',
      'albums-file': '/tmp/albums.json',
      'graphql-max-depth': '7',
      'graphql-max-fields': '40',
      'graphql-max-aliases': '2',
      'graphql-max-document-size': '4kb',
      'no-graphql-introspection': true
    }, {})
    expect(config.albums).toMatchObject({
      enabled: true, base: '/music', albumsFile: '/tmp/albums.json', maxDepth: 7, maxFields: 40, maxAliases: 2, maxDocumentBytes: 4096, introspection: false
    })
    expect(resolveConfig({ 'no-albums': true }, {}).albums.enabled).toBe(false)
    expect(resolveConfig({ 'albums-base': '/' }, {}).albums.base).toBe('')
    expect(resolveConfig({}, { RQS_ALBUMS_BASE: '/gql', RQS_GRAPHQL_MAX_DEPTH: '9', RQS_GRAPHQL_NO_INTROSPECTION: 'true' }).albums)
      .toMatchObject({ base: '/gql', maxDepth: 9, introspection: false })
    expect(resolveConfig({}, {}).albums).toMatchObject({ enabled: true, base: '', introspection: true })
  })

  it.each([
    [{ 'albums-base': 'music' }, /--albums-base must be a path/],
    [{ 'graphql-max-depth': '-1' }, /--graphql-max-depth must be a non-negative integer/],
    [{ 'graphql-max-document-size': 'big' }, /--graphql-max-document-size must be a size/],
    [{ 'albums-file': '' }, /--albums-file must not be empty/]
  ])('bad values are ConfigErrors (exit 2): %j', (flags, message) => {
    expect(() => resolveConfig(flags, {})).toThrow(ConfigError)
    expect(() => resolveConfig(flags, {})).toThrow(message)
  })
})
