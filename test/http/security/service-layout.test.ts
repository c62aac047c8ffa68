import { describe, expect, it } from 'vitest'
import { makeConfig } from '../../../src/options.js'
import { ServiceLayout } from '../../../src/http/service-layout.js'

describe('ServiceLayout: what a path is, from the configured mounts', () => {
  it('with the default mounts', () => {
    const layout = new ServiceLayout(makeConfig())
    expect(layout.classify('/students/:id')).toEqual({ service: 'students', access: 'service', graphql: false, uriVersion: undefined })
    expect(layout.classify('/v2/students/:id')).toMatchObject({ service: 'students', access: 'service', uriVersion: 2 })
    expect(layout.classify('/students/assets/*')).toMatchObject({ service: 'students', access: 'public' })
    expect(layout.classify('/addresses/:id')).toMatchObject({ service: 'addresses', access: 'service' })
    expect(layout.classify('/v1/addresses')).toMatchObject({ service: 'addresses', access: 'service', uriVersion: 1 })
    expect(layout.classify('/graphql')).toMatchObject({ service: 'albums', access: 'service', graphql: true })
    expect(layout.classify('/graphql/schema.graphql')).toMatchObject({ access: 'public', graphql: false })
    expect(layout.classify('/graphiql/editor.worker.js')).toMatchObject({ access: 'public' })
    expect(layout.classify('/metrics')).toMatchObject({ access: 'metrics' })
    for (const path of ['/', '/healthz', '/readyz', '/openapi.json', '/docs/api/static/index.html', '/docs/', '/errors/:code', '/studentsX']) {
      expect(layout.classify(path), path).toEqual({ access: 'public', graphql: false })
    }
  })

  it('with moved bases, no URI versioning, and the student service at the root', () => {
    const layout = new ServiceLayout(makeConfig({
      students: { base: '/' },
      addresses: { base: '/book' },
      albums: { base: '/music' },
      versioning: { uri: false }
    }))
    expect(layout.classify('/:id')).toMatchObject({ service: 'students', access: 'service' })
    expect(layout.classify('/healthz')).toMatchObject({ access: 'public' })
    expect(layout.classify('/book/addresses/:id')).toMatchObject({ service: 'addresses', access: 'service' })
    expect(layout.classify('/music/graphql')).toMatchObject({ service: 'albums', graphql: true })
    expect(layout.classify('/music/graphiql')).toMatchObject({ access: 'public' })
    expect(layout.classify('/v2/addresses')).toMatchObject({ service: 'students' }) // no /v2 mounts: the root service's path
  })
})
