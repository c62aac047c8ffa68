import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

const post = async (query: string, accept?: string): Promise<Awaited<ReturnType<typeof request>>> =>
  await request(`${server.origin}/graphql`, { method: 'POST', json: { query }, headers: accept === undefined ? {} : { accept } })

describe('kept GraphQL answers', () => {
  it('answer a repeated request byte for byte as the first time, with the same headers', async () => {
    const first = await post('{ albums { title } }')
    const again = await post('{ albums { title } }')
    expect(again.status).toBe(200)
    expect(again.text).toBe(first.text)
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'))
    expect(again.headers.get('vary')).toBe(first.headers.get('vary'))
  })

  it('never serve one request the answer of another: text, media type and method are all part of it', async () => {
    const titles = await post('{ albums { title } }')
    const artists = await post('{ albums { artist } }')
    expect(artists.text).not.toBe(titles.text)
    expect(artists.body.data.albums[0]).toHaveProperty('artist')
    const graphqlJson = await post('{ albums { title } }', 'application/graphql-response+json')
    expect(graphqlJson.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/)
    expect(titles.headers.get('content-type')).toMatch(/^application\/json/)
    const byGet = await request(`${server.origin}/graphql?query=${encodeURIComponent('{ albums { title } }')}`)
    expect(byGet.status).toBe(200)
    expect(byGet.body).toEqual(titles.body)
  })

  it('keeps no failure: a bad request stays a bad request, then a good one is answered', async () => {
    const bad = await post('{ albums { nope } }')
    expect(bad.status).toBe(200) // application/json: GraphQL errors ride on 200
    expect(bad.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED')
    const badAgain = await post('{ albums { nope } }')
    expect(badAgain.body).toEqual(bad.body)
  })
})
