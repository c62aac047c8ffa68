import http from 'node:http'
import net from 'node:net'
import { startServer, type RunningServer } from '../helpers/server.js'
import type { ConfigOverrides } from '../../src/options.js'
import { parseNonNegativeInteger } from '../../src/http/rest/ids.js'
import { parseAddressId } from '../../src/services/addresses/id.js'
import type { FuzzRequest } from './requests.js'
import type { Address, Stores, Student } from '../helpers/built-ins.js'

/**
 * A server under fuzzing: real sockets (as the hostile run of issue 10 used),
 * records written before the run (the canaries, which no generated request
 * may legitimately touch), and the stores' change log, which numbers every
 * change, so a refused request (4xx) that changed something anyway is caught
 * on the spot.
 */
export interface FuzzTarget {
  server: RunningServer
  /** Changes so far (creates, replaces, puts, deletes): the change log's last sequence number. */
  changes: () => Promise<number>
  /** Canary records as they are now, and as they were written. */
  canaries: () => Promise<{ now: unknown, written: unknown }>
  send: (request: FuzzRequest) => Promise<FuzzResponse>
  close: () => Promise<void>
}

export interface FuzzResponse {
  status: number
  headers: http.IncomingHttpHeaders
  text: string
}

export const STUDENT_CANARIES = [0, 1, 2]
export const ADDRESS_CANARIES = [4242424242424242n, 4242424242424243n]
const SCRATCH_STUDENT = 77
const SCRATCH_ADDRESS = 77n
/** Longest wait for one answer: a request that hangs is a failure, not a slow pass. */
export const ANSWER_BOUND_MS = 15_000

export async function startFuzzTarget (stores: Stores, overrides: ConfigOverrides = {}): Promise<FuzzTarget> {
  const students: Student[] = []
  for (const [i, firstName] of ['Canary', 'Zoë 😀', 'e\u0301\ufeff'].entries()) {
    students.push(await stores.students.create({ firstName, lastName: `Bird ${i}`, age: 30 + i }))
  }
  const addresses: Address[] = []
  for (const id of ADDRESS_CANARIES) {
    const result = await stores.addresses.put(id, { name: `Canary ${id}`, city: 'Kiel', postalCode: '24103' })
    if (result.outcome === 'precondition-failed') throw new Error('fuzz target needs empty stores')
    addresses.push(result.record)
  }
  if (students.map((s) => s.id).join() !== STUDENT_CANARIES.join()) throw new Error('fuzz target needs empty stores')

  const server = await startServer({ logLevel: 'silent', ...overrides }, { stores })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const { port } = new URL(server.origin)
  return {
    server,
    changes: async () => (await stores.changes.window()).latest,
    canaries: async () => ({
      now: { students: await Promise.all(STUDENT_CANARIES.map(async (id) => await stores.students.get(id))), addresses: await Promise.all(ADDRESS_CANARIES.map(async (id) => await stores.addresses.get(id))) },
      written: { students, addresses }
    }),
    send: async (request) => await send(Number(port), agent, sparingCanaries(request)),
    close: async () => {
      agent.destroy()
      await server.close()
    }
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * The canaries must stay as written, so a write that would legitimately
 * reach one (a valid DELETE /students/1, a PUT with body id 2) is pointed at
 * a scratch record instead. The id is read the way the server reads it.
 */
function sparingCanaries (request: FuzzRequest): FuzzRequest {
  if (!WRITES.has(request.method)) return request
  const q = request.path.indexOf('?')
  const pathOnly = q < 0 ? request.path : request.path.slice(0, q)
  const segments = pathOnly.split('/')
  const spared = segments.map((segment, i) => {
    let decoded: string
    try { decoded = decodeURIComponent(segment) } catch { return segment }
    const inStudents = segments.slice(0, i).includes('students')
    const inAddresses = segments.slice(0, i).includes('addresses')
    if (inStudents && STUDENT_CANARIES.includes(parseNonNegativeInteger(decoded))) return String(SCRATCH_STUDENT)
    const address = inAddresses ? parseAddressId(decoded) : undefined
    if (address !== undefined && ADDRESS_CANARIES.includes(address)) return String(SCRATCH_ADDRESS)
    return segment
  })
  let body = request.body
  if (body !== undefined) {
    try {
      const parsed = JSON.parse(body.toString('utf8')) as { id?: unknown }
      const id = typeof parsed === 'object' && parsed !== null ? parsed.id : undefined
      if (typeof id === 'number' && STUDENT_CANARIES.includes(id)) body = Buffer.from(JSON.stringify({ ...parsed, id: SCRATCH_STUDENT }))
    } catch { /* not JSON: no id to spare */ }
  }
  return { ...request, path: spared.join('/') + (q < 0 ? '' : request.path.slice(q)), body }
}

/**
 * The same for raw bytes: a numeric `id` member of a write's body becomes
 * 7s of the same length (so Content-Length stays right). Raw targets never
 * name a canary (see ./raw-requests.ts).
 */
export function sparingRawCanaries (bytes: Buffer): Buffer {
  const text = bytes.toString('latin1')
  if (!WRITES.has(text.slice(0, text.indexOf(' ')))) return bytes
  return Buffer.from(text.replace(/("id"\s*:\s*)(-?[0-9][0-9.eE+-]*)/g, (_m, key: string, n: string) => key + '7'.repeat(n.length)), 'latin1')
}

async function send (port: number, agent: http.Agent, request: FuzzRequest): Promise<FuzzResponse> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    try { http.validateHeaderValue(name, value); headers[name] = value } catch { /* the client library refuses it: the raw suite sends such bytes */ }
  }
  if (request.body !== undefined) headers['content-length'] = String(request.body.length)
  return await new Promise<FuzzResponse>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent, timeout: ANSWER_BOUND_MS }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }) })
      res.on('error', reject)
    })
    req.on('timeout', () => { req.destroy(new Error(`no answer within ${ANSWER_BOUND_MS} ms`)) })
    req.on('error', reject)
    req.end(request.body)
  })
}

/** Raw bytes on a fresh connection; resolves with what came back once the server closed it (or the bound passed). */
export async function sendRaw (origin: string, bytes: Buffer, boundMs = ANSWER_BOUND_MS): Promise<{ text: string, closed: boolean }> {
  const { port } = new URL(origin)
  return await new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(bytes))
    const timer = setTimeout(() => { socket.destroy(); resolve({ text: Buffer.concat(chunks).toString('latin1'), closed: false }) }, boundMs)
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', () => {})
    socket.on('close', () => { clearTimeout(timer); resolve({ text: Buffer.concat(chunks).toString('latin1'), closed: true }) })
  })
}
