import { afterEach, describe, expect, it } from 'vitest'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { keptAliveGet, type KeptAliveAnswer } from '../helpers/kept-alive.js'
import { connectFeed, type FeedConnection } from '../helpers/sse.js'
import { bearer, writeTokensFile, type TokensFile } from '../http/security/helpers.js'

/**
 * The change feed cannot lock everyone out (issue 19, item 3). One client
 * opening 5 000 streams took all 4 096 connections (heartbeats keep streams
 * alive), and with `--auth-tokens` 400 requests answered 401 on kept-alive
 * connections did the same with `--max-connections 400`. Against a real
 * process with `--max-connections 40`: streams stop at the per-client limit
 * (8) and the overall one (half the cap, 20), refusals close their
 * connections, and another client's GET /students is still answered.
 */

const CAP = '40'
const ATTEMPTS = 60 // more than the connection cap
/** A loaded machine can take long to start a process under tsx. */
const START_MS = 60_000

let server: ServerProcess | undefined
let tokens: TokensFile | undefined
const open: Array<FeedConnection | KeptAliveAnswer> = []

afterEach(async () => {
  for (const connection of open.splice(0)) connection.close()
  await server?.stop()
  server = undefined
  await tokens?.remove()
  tokens = undefined
})

/** A stream request from the client at `address` (the trusted proxy's X-Forwarded-For); kept open when it is a stream. */
async function stream (address: string): Promise<number> {
  const connection = await connectFeed(`${(server as ServerProcess).origin}/events`, { 'x-forwarded-for': address })
  open.push(connection)
  if (connection.status !== 200) await connection.ended // a refusal closes its connection
  return connection.status
}

async function studentsAnswered (headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${(server as ServerProcess).origin}/students`, { headers: { ...headers, connection: 'close' } })
  await res.arrayBuffer()
  return res.status
}

describe('streams leave connections for everyone else', () => {
  it('one client: refused (429) after 8 streams; many clients: refused (503) after 20 = half of --max-connections; another client is still answered', async () => {
    server = await spawnServer(['--max-connections', CAP, '--trust-proxy', 'true'], {}, START_MS)

    // One client opens streams until refused.
    const statuses: number[] = []
    while (statuses.at(-1) !== 429 && statuses.length < ATTEMPTS) statuses.push(await stream('198.51.100.1'))
    expect(statuses).toEqual([...Array<number>(8).fill(200), 429])
    expect(await studentsAnswered()).toBe(200)

    // Many clients open streams until the server refuses: 20 in all, far below the 40 connections.
    let streams = 8
    let refusal = 0
    for (let client = 2; refusal === 0 && client < ATTEMPTS; client++) {
      for (let i = 0; i < 8; i++) {
        const status = await stream(`198.51.100.${client}`)
        if (status !== 200) { refusal = status; break }
        streams++
      }
    }
    expect([streams, refusal]).toEqual([20, 503])
    // More than the connection cap of further attempts, one after another: each refused and closed, so none piles up.
    const more: number[] = []
    for (let i = 0; i < ATTEMPTS; i++) more.push(await stream(`203.0.113.${i}`))
    expect(new Set(more)).toEqual(new Set([503]))
    expect(await studentsAnswered()).toBe(200)
  }, 120_000)

  it('with --auth-tokens, stream requests without a token (401) on kept-alive connections are closed by the server: a client with a token is still answered', async () => {
    const file = await writeTokensFile({ app: ['read'] })
    tokens = file
    server = await spawnServer(['--max-connections', CAP, '--auth-tokens', file.path], {}, START_MS)
    const origin = server.origin
    // The client keeps every connection open; only the server can close them.
    const refused: KeptAliveAnswer[] = []
    for (let i = 0; i < ATTEMPTS; i++) {
      const answer = await keptAliveGet(origin, '/events')
      open.push(answer)
      refused.push(answer)
    }
    expect(new Set(refused.map((r) => `${r.status} ${r.headers.connection}`))).toEqual(new Set(['401 close']))
    await Promise.all(refused.map(async (r) => await r.ended))
    expect(await studentsAnswered(bearer(file.tokens.app))).toBe(200)
  }, 120_000)
})
