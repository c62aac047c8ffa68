import type { FastifyInstance } from 'fastify'
import { makeConfig, type ConfigOverrides } from '../../src/options.js'
import { buildServer, type ServerDependencies } from '../../src/server.js'
import { recordExchanges, type ContractRecorder } from './contract.js'

export interface RunningServer {
  app: FastifyInstance
  /** Origin, e.g. http://127.0.0.1:41234 (no trailing slash). */
  origin: string
  close: () => Promise<void>
}

/**
 * Starts a real server on a free loopback port. Integration tests talk HTTP
 * to it with fetch, exactly as a client would.
 */
export async function startServer (overrides: ConfigOverrides = {}, deps: ServerDependencies = {}, options: { contract?: ContractRecorder } = {}): Promise<RunningServer> {
  const config = makeConfig({ logLevel: 'silent', port: 0, ...overrides })
  // Opt-in: the contract recorder sees every route and every answer (test/helpers/contract.ts).
  const app = await buildServer(config, options.contract === undefined ? deps : { ...deps, onRoute: options.contract.onRoute })
  if (options.contract !== undefined) recordExchanges(app.server, options.contract)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('server did not bind a TCP port')
  return { app, origin: `http://127.0.0.1:${address.port}`, close: async () => { await app.close() } }
}

/** JSON request helper: returns status, headers, raw text and parsed JSON (when any). */
export async function request (url: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number, headers: Headers, text: string, body: any }> {
  const { json, ...rest } = init
  const headers = new Headers(rest.headers)
  let body = rest.body
  if (json !== undefined) {
    body = JSON.stringify(json)
    if (!headers.has('content-type')) headers.set('content-type', 'application/json')
  }
  const res = await fetch(url, { ...rest, headers, body })
  const text = await res.text()
  let parsed: unknown
  try { parsed = text === '' ? undefined : JSON.parse(text) } catch { parsed = undefined }
  return { status: res.status, headers: res.headers, text, body: parsed }
}
