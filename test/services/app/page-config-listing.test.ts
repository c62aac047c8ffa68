import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeConfig } from '../../../src/options.js'
import { pageConfig } from '../../../src/services/app/index.js'
import type { DirectoryLink } from '../../../src/services/home/index.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * The app's page names the collections' listing (directory rel
 * "collections") when the server has one: the page reads it again while it
 * is open (views of collections created meanwhile, the schema editor), and
 * never asks a server without it.
 */
describe('the page configuration names the collections listing', () => {
  it('names it from the directory, and only then', () => {
    const versioning = makeConfig({}).versioning
    const students: DirectoryLink = { rel: 'students', href: '/students', title: 's' }
    expect(pageConfig([students, { rel: 'collections', href: '/collections', title: 'c' }], versioning).collectionsListing).toBe('/collections')
    expect(pageConfig([students], versioning).collectionsListing).toBeUndefined()
  })

  describe('on a server with the collections admin API', () => {
    let server: RunningServer
    beforeAll(async () => { server = await startServer({ collections: { declared: [], api: true } }) })
    afterAll(async () => { await server.close() })

    it('is in the served page', async () => {
      const page = await request(`${server.origin}/app/`)
      if (page.status === 503) return // the bundle is not built: the page has no configuration to read
      expect(page.text).toContain('&quot;collectionsListing&quot;:&quot;/collections&quot;')
    })
  })
})
