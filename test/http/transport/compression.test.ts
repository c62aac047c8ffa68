import { request as httpRequest } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import type { RouteOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeConfig } from '../../../src/options.js'
import { buildServer } from '../../../src/server.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'

let server: RunningServer
beforeAll(async () => { server = await startServer() })
afterAll(async () => { await server.close() })

/** A raw GET (fetch would undo the encoding): status, headers and the bytes as sent. */
async function raw (path: string, headers: Record<string, string> = {}): Promise<{ headers: Record<string, string | string[] | undefined>, body: Buffer }> {
  return await new Promise((resolve, reject) => {
    httpRequest(`${server.origin}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => { resolve({ headers: res.headers, body: Buffer.concat(chunks) }) })
    }).on('error', reject).end()
  })
}

describe('response compression (@fastify/compress)', () => {
  it('compresses large answers with br or gzip as Accept-Encoding allows, and not without it', async () => {
    const plain = await raw('/openapi.json')
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body.length).toBeGreaterThan(10_000)
    const br = await raw('/openapi.json', { 'accept-encoding': 'gzip, deflate, br' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.headers.vary).toMatch(/accept-encoding/i)
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true)
    expect(br.body.length).toBeLessThan(plain.body.length / 4)
    const gzip = await raw('/openapi.json', { 'accept-encoding': 'gzip' })
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true)
  })

  it('leaves answers under 1 KiB, and single records always, as they are', async () => {
    await request(`${server.origin}/students`, { method: 'POST', json: { firstName: 'Ada', lastName: 'Lovelace', age: 36 } })
    const small = await raw('/students', { 'accept-encoding': 'br' })
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(JSON.parse(small.body.toString()).body).toHaveLength(1)
    const one = await raw('/students/0', { 'accept-encoding': 'br' })
    expect(one.headers['content-encoding']).toBeUndefined()
    for (let i = 0; i < 30; i++) await request(`${server.origin}/students`, { method: 'POST', json: { firstName: `Ada${i}`, lastName: 'Lovelace', age: 36 } })
    const list = await raw('/students', { 'accept-encoding': 'br' })
    expect(list.headers['content-encoding']).toBe('br')
    expect(JSON.parse(brotliDecompressSync(list.body).toString()).body).toHaveLength(31)
  })
})

describe('routes whose answer is one record pay nothing for compression (issue 20)', () => {
  it('every read and write of one student, address or declared record has no compression hook; lists keep theirs', async () => {
    const routes: RouteOptions[] = []
    const app = await buildServer(makeConfig({ logLevel: 'silent' }), { onRoute: (route) => { routes.push(route) } })
    await app.ready()
    const hooksOf = (route: RouteOptions): unknown[] => [route.onSend].flat().filter((h) => h !== undefined)
    const single = routes.filter((r) => r.method !== 'HEAD' && /^(get|create|replace|put|delete)(Student|Address)(ById)?$/.test(String(r.schema?.operationId)))
    expect(single.map((r) => r.schema?.operationId)).toEqual(expect.arrayContaining(['getStudent', 'createStudent', 'replaceStudent', 'replaceStudentById', 'deleteStudent', 'getAddress', 'createAddress', 'putAddress', 'deleteAddress']))
    for (const route of single) expect(hooksOf(route), `${String(route.method)} ${route.url}`).toEqual([])
    const lists = routes.filter((r) => r.schema?.operationId === 'listStudents' || r.schema?.operationId === 'listAddresses')
    expect(lists.length).toBeGreaterThan(0)
    for (const route of lists) expect(hooksOf(route).length, `${String(route.method)} ${route.url}`).toBeGreaterThan(0)
    await app.close()
  })
})
