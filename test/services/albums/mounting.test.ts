import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { get } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { graphql } from './helpers.js'

/** A GET whose body is not decoded (fetch would decode it and hide the encoding). */
async function rawGet (url: string, acceptEncoding: string): Promise<{ status: number, encoding: string | undefined, body: Buffer }> {
  return await new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }) })
      res.on('error', reject)
    }).on('error', reject)
  })
}

describe('album service mounting', () => {
  describe('under --albums-base /music', () => {
    let server: RunningServer
    beforeAll(async () => { server = await startServer({ albums: { base: '/music' } }) })
    afterAll(async () => { await server.close() })

    it('moves /graphql, the SDL and /graphiql, whose page points at the moved endpoint and assets', async () => {
      expect((await graphql(`${server.origin}/music`, '{ albums(titleFilter: "Rum") { title } }')).body).toEqual({ data: { albums: [{ title: 'Rumours' }] } })
      expect((await request(`${server.origin}/music/graphql/schema.graphql`)).status).toBe(200)
      expect((await request(`${server.origin}/graphql`, { method: 'POST', json: { query: '{ __typename }' } })).status).toBe(404)
      const page = await request(`${server.origin}/music/graphiql`)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(page.text).toContain('data-endpoint="/music/graphql"')
      expect(page.text).toContain('src="/music/graphiql/graphiql.js"')
      expect(page.text).toContain('href="/music/graphiql/graphiql.css"')
      expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//) // nothing from elsewhere
    })

    it('serves the bundle and the three Monaco workers from the same origin', async () => {
      for (const file of ['graphiql.js', 'graphiql.css', 'editor.worker.js', 'json.worker.js', 'graphql.worker.js']) {
        const res = await fetch(`${server.origin}/music/graphiql/${file}`)
        expect(res.status, file).toBe(200)
        expect(res.headers.get('content-type'), file).toMatch(file.endsWith('.css') ? /^text\/css/ : /^(text|application)\/javascript/)
        await res.arrayBuffer()
      }
      expect((await request(`${server.origin}/music/graphiql/nope.js`)).status).toBe(404)
      const escape = await request(`${server.origin}/music/graphiql/..%2f..%2fpackage.json`)
      expect([403, 404]).toContain(escape.status)
      expect(escape.text).not.toContain('"name": "rqs"')
    })

    it('sends the bundle pre-compressed to clients that accept it, as is to the others', async () => {
      const url = `${server.origin}/music/graphiql/graphiql.js`
      const plain = await rawGet(url, 'identity')
      for (const encoding of ['br', 'gzip']) {
        const res = await rawGet(url, encoding)
        expect(res.status).toBe(200)
        expect(res.encoding).toBe(encoding)
        expect(res.body.length).toBeLessThan(plain.body.length / 2)
        const decoded = encoding === 'br' ? brotliDecompressSync(res.body) : gunzipSync(res.body)
        expect(decoded.equals(plain.body)).toBe(true)
      }
      expect(plain.encoding).toBeUndefined()
    })

    it('/graphiql with a trailing slash is the same page', async () => {
      const res = await request(`${server.origin}/music/graphiql/`)
      expect(res.status).toBe(200)
      expect(res.text).toContain('data-endpoint="/music/graphql"')
    })
  })

  it('at the default base the endpoint is /graphql and GraphiQL /graphiql', async () => {
    const server = await startServer()
    try {
      const page = await request(`${server.origin}/graphiql`)
      expect(page.text).toContain('data-endpoint="/graphql"')
      // The student records service is unaffected.
      expect((await request(`${server.origin}/students/`)).body).toEqual({ isSuccessful: true, body: [] })
    } finally {
      await server.close()
    }
  })

  it('--no-albums mounts nothing', async () => {
    const server = await startServer({ albums: { enabled: false } })
    try {
      expect((await request(`${server.origin}/graphql?query=%7B__typename%7D`)).status).toBe(404)
      expect((await request(`${server.origin}/graphiql`)).status).toBe(404)
    } finally {
      await server.close()
    }
  })

  it('without a built GraphiQL bundle, /graphiql is a 503 that says how to build it, and GraphQL still works', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'rqs-no-graphiql-'))
    const server = await startServer({ albums: { graphiqlDir: empty } })
    try {
      const res = await request(`${server.origin}/graphiql`)
      expect(res.status).toBe(503)
      expect(res.text).toContain('npm run build')
      expect((await graphql(server.origin, '{ __typename }')).body).toEqual({ data: { __typename: 'Query' } })
    } finally {
      await server.close()
      await rm(empty, { recursive: true, force: true })
    }
  })
})
