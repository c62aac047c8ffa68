import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { createRequire } from 'node:module'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

/**
 * /openapi.json is kept as bytes in parts and streamed, and Swagger UI's own
 * copies (/docs/api/json, /docs/api/yaml) are answered from the same kept
 * texts, not serialised by the package in one call: the same bytes, the
 * same document as YAML, the length announced, HEAD and gzip as for any
 * answer, and all of them made again when a collection changes while the
 * server runs.
 */
const require = createRequire(import.meta.url)
// The YAML library Swagger UI loads, to read the YAML back.
const yaml = createRequire(require.resolve('@fastify/swagger-ui'))('yaml') as { parse: (text: string) => unknown }
const BOOKS = { schema: { type: 'object', properties: { title: { type: 'string', minLength: 1, description: 'yes: "quoted" # not a comment\nnext line' }, year: { type: 'integer' } }, required: ['title'] }, ids: 'sequence' }

/** The answer's bytes as sent (fetch asks for compressed answers unless told otherwise, and then no length is announced). */
async function raw (url: string, init: RequestInit = {}): Promise<{ status: number, headers: Headers, bytes: Buffer }> {
  const answer = await fetch(url, { ...init, headers: { 'accept-encoding': 'identity', ...init.headers as Record<string, string> } })
  return { status: answer.status, headers: answer.headers, bytes: Buffer.from(await answer.arrayBuffer()) }
}

/** The answer as node:http reads it: what was sent, not decompressed. */
async function viaHttp (url: string, method: string, headers: Record<string, string> = {}): Promise<{ status: number | undefined, headers: IncomingHttpHeaders, body: Buffer }> {
  return await new Promise((resolve, reject) => {
    httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => { resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }) })
    }).on('error', reject).end()
  })
}

describe('the kept texts of the document', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ collections: { declared: [], api: true } })
  }, 60_000)
  afterAll(async () => { await server?.close() })

  const texts = async (): Promise<{ json: Buffer, ui: Buffer, yaml: string }> => {
    const json = await raw(`${server.origin}/openapi.json`)
    expect(json.status).toBe(200)
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(json.headers.get('content-length')).toBe(String(json.bytes.length))
    const ui = await raw(`${server.origin}/docs/api/json`)
    expect(ui.status).toBe(200)
    expect(ui.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(ui.headers.get('content-length')).toBe(String(ui.bytes.length))
    const text = await raw(`${server.origin}/docs/api/yaml/`)
    expect(text.status).toBe(200)
    expect(text.headers.get('content-type')).toBe('application/x-yaml')
    return { json: json.bytes, ui: ui.bytes, yaml: text.bytes.toString() }
  }

  it('serves Swagger UI the bytes of /openapi.json, and YAML that reads back as the same document', async () => {
    const { json, ui, yaml: text } = await texts()
    expect(ui.equals(json)).toBe(true)
    expect(yaml.parse(text)).toEqual(JSON.parse(json.toString()))
    expect(text).toMatch(/^openapi: "3\.1\.0"\npaths:|^openapi: "3\.1\.0"\n/)
    const head = await viaHttp(`${server.origin}/openapi.json`, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.headers['content-length']).toBe(String(json.length))
    expect(head.body.length).toBe(0)
  }, 60_000)

  it('sends the kept bytes compressed when asked', async () => {
    const { json } = await texts()
    const compressed = await viaHttp(`${server.origin}/openapi.json`, 'GET', { 'accept-encoding': 'gzip' })
    expect(compressed.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(compressed.body).equals(json)).toBe(true)
  }, 60_000)

  it('makes all three again when a collection is created while the server runs', async () => {
    const before = await texts()
    expect(Object.keys((JSON.parse(before.json.toString()) as { paths: object }).paths)).not.toContain('/books')
    expect((await request(`${server.origin}/collections`, { method: 'POST', json: { name: 'books', ...BOOKS } })).status).toBe(201)
    const after = await texts()
    const document = JSON.parse(after.json.toString()) as { paths: Record<string, unknown> }
    expect(Object.keys(document.paths)).toContain('/books')
    expect(after.ui.equals(after.json)).toBe(true)
    expect(yaml.parse(after.yaml)).toEqual(document)
  }, 60_000)
})
