import { afterEach, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

let server: RunningServer | undefined
afterEach(async () => { await server?.close(); server = undefined })

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

describe('GET /graphql from a browser opens GraphiQL (issue 15)', () => {
  it('a browser (Accept preferring text/html) is sent to /graphiql with 303, the query string kept', async () => {
    server = await startServer()
    const res = await request(`${server.origin}/graphql?query=%7Balbums%7Btitle%7D%7D`, { headers: { accept: BROWSER }, redirect: 'manual' })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('/graphiql?query=%7Balbums%7Btitle%7D%7D')
    expect(res.headers.get('vary')).toMatch(/Accept/)
    const page = await request(`${server.origin}/graphql`, { headers: { accept: BROWSER } })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.text).toContain('GraphiQL')
  })

  it('GraphQL clients are unaffected: no Accept, */* and the GraphQL media types get GraphQL answers', async () => {
    server = await startServer()
    const query = `${server.origin}/graphql?query=${encodeURIComponent('{ albums { title } }')}`
    for (const accept of [undefined, '*/*', 'application/json', 'application/graphql-response+json', 'application/json, text/html;q=0.5']) {
      const res = await request(query, { headers: accept === undefined ? {} : { accept }, redirect: 'manual' })
      expect(res.status, accept).toBe(200)
      expect(res.body.data.albums).toHaveLength(3)
    }
    // A browser's POST is GraphQL as ever: only GET pages redirect.
    const post = await request(`${server.origin}/graphql`, { method: 'POST', headers: { accept: BROWSER }, json: { query: '{ albums { title } }' } })
    expect(post.status).toBe(200)
  })

  it('follows a moved base: /x/graphql sends browsers to /x/graphiql', async () => {
    server = await startServer({ albums: { base: '/x' } })
    const res = await request(`${server.origin}/x/graphql`, { headers: { accept: BROWSER }, redirect: 'manual' })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('/x/graphiql')
  })
})
