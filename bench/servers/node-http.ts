// Baseline: bare node:http, the ceiling. It answers the routes listed in the JSON file named by
// BENCH_ROUTES_FILE (written by the runner): `fixed` routes send the exact status, headers and body
// rqs sent for the same request; `echo` routes read the JSON body, JSON.parse it, and answer it back
// with an id (in the students envelope where rqs has one): the least a JSON write can do.
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { announce, exitOnSignal } from './shared.js'

export type BareRoute =
  | { kind: 'fixed', method: string, path: string, status: number, headers: Record<string, string>, body: string }
  | { kind: 'echo', method: string, path: string, status: number, envelope: boolean, id: 'next' | 'keep' | number }

const file = process.env.BENCH_ROUTES_FILE
if (file === undefined) throw new Error('BENCH_ROUTES_FILE is required')
const routes = JSON.parse(readFileSync(file, 'utf8')) as BareRoute[]

type Handler = (req: IncomingMessage, res: ServerResponse) => void
const handlers = new Map<string, Handler>()
let nextId = 1_000_000
for (const route of routes) handlers.set(`${route.method} ${route.path}`, route.kind === 'fixed' ? fixed(route) : echo(route))

function fixed (route: Extract<BareRoute, { kind: 'fixed' }>): Handler {
  const body = Buffer.from(route.body)
  const headers = { ...route.headers, 'content-length': String(body.length) }
  return (req, res) => {
    // Drain any request body before answering, as a real server must.
    req.resume()
    req.on('end', () => { res.writeHead(route.status, headers).end(body) })
  }
}

function echo (route: Extract<BareRoute, { kind: 'echo' }>): Handler {
  return (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let parsed: Record<string, unknown>
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
      } catch {
        res.writeHead(400).end()
        return
      }
      const id = route.id === 'next' ? nextId++ : route.id === 'keep' ? parsed.id : route.id
      const record = { ...parsed, id }
      const body = JSON.stringify(route.envelope ? { isSuccessful: true, body: record } : record)
      res.writeHead(route.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body)
    })
  }
}

const server = createServer((req, res) => {
  const handler = handlers.get(`${req.method ?? ''} ${req.url ?? ''}`)
  if (handler !== undefined) handler(req, res)
  else res.writeHead(404).end()
})
exitOnSignal(() => { server.close() })
server.listen(0, '127.0.0.1', () => announce(server))
