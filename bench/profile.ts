/**
 * npm run bench:profile — where rqs spends its time under load. For each
 * scenario: rqs (dist/, default config) runs on the server core under
 * `node --cpu-prof`, wrk loads it from the other core (1 s warm-up, then the
 * measured window), the server exits so V8 writes the profile, and the
 * samples inside the window are summarised: per-request time of the work
 * issue 12 names (hooks, version negotiation, request id, logging,
 * serialisation, GraphQL execution), self time by package and by function.
 *
 *   npm run bench:profile [-- --only get-student,graphql-post --duration 8 --no-build]
 *   npm run bench:profile -- --summarise     # summarise the profiles already in results/profiles again
 *   DATABASE_URL=postgres://… npm run bench:profile -- --only pg-get   # the PostgreSQL store (a fresh database, dropped after)
 *   npm run bench:profile -- --only get-student,fastify-get,post-student,fastify-post   # and what rqs pays beyond Fastify with nothing added
 *
 * Profiles go to bench/results/profiles/<scenario>.cpuprofile (open them in
 * Chrome DevTools or speedscope for flame graphs), summaries to <scenario>.md
 * and, all together, to stdout.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { formatBeyond, formatSummary, summarise, type Probe, type ProfileSummary } from './lib/cpuprofile.js'
import { load, type LoadRequest } from './lib/load.js'
import { freshDatabase } from './lib/postgres.js'
import { buildDist } from './lib/build.js'
import { BENCH_DIR, killAll, onInterrupt, startServer } from './lib/procs.js'
import { R, rqsSpec } from './lib/requests.js'

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string' },
    interval: { type: 'string', default: '100' },
    'no-build': { type: 'boolean', default: false },
    summarise: { type: 'boolean', default: false }
  }
})

/**
 * A scenario's store: memory (rqs's default), SQLite in a temporary file, or
 * PostgreSQL in a fresh database beside DATABASE_URL (created and dropped
 * here, as bench/run.ts does), with the 10 clients of the `pg-get` row.
 */
type StoreKind = 'memory' | 'sqlite' | 'postgres'
interface Scenario {
  title: string
  request: LoadRequest
  students: number
  store?: StoreKind
  connections?: number
  /** Another server than rqs: Fastify with nothing added (servers/fastify-bare.ts), the framework's ceiling. */
  server?: 'fastify-bare'
  /** The scenario of the same request on Fastify with nothing added: the summary then says what rqs pays beyond it. */
  versus?: string
}
const SCENARIOS: Record<string, Scenario> = {
  'get-student': { title: 'GET /students/{id}', request: R.getStudent, students: 1, versus: 'fastify-get' },
  'post-student': { title: 'POST /students', request: R.postStudent, students: 1, versus: 'fastify-post' },
  'fastify-get': { title: 'Fastify, nothing added: GET /students/{id}', request: R.getStudent, students: 1, server: 'fastify-bare' },
  'fastify-post': { title: 'Fastify, nothing added: POST /students', request: R.postStudent, students: 1, server: 'fastify-bare' },
  'get-address': { title: 'GET /addresses/{id}', request: R.getAddress, students: 1 },
  'put-address': { title: 'PUT /addresses/{id}', request: R.putAddress, students: 1 },
  'graphql-post': { title: 'GraphQL albums (POST)', request: R.graphqlPost, students: 1 },
  'graphql-get': { title: 'GraphQL albums (GET)', request: R.graphqlGet, students: 1 },
  list: { title: 'GET /students holding 10 000', request: R.listStudents, students: 10_000 },
  'graphql-page': { title: 'GraphQL students(first: 50, filter) holding 10 000', request: R.graphqlStudentsPage, students: 10_000 },
  'rest-page': { title: 'GET /students?limit=50&age[gte]=… holding 10 000', request: R.restStudentsPage, students: 10_000 },
  'sqlite-get': { title: 'SQLite GET /students/{id}', request: R.getStudent, students: 1, store: 'sqlite' },
  'pg-get': { title: 'PostgreSQL GET /students/{id}, 10 clients', request: R.getStudent, students: 1, store: 'postgres', connections: 10 },
  'pg-post': { title: 'PostgreSQL POST /students, 10 clients', request: R.postStudent, students: 1, store: 'postgres', connections: 10 }
}

const inFile = (part: string) => (f: { url: string }): boolean => f.url.includes(part)
const fn = (name: string, part = '') => (f: { functionName: string, url: string }): boolean => f.functionName === name && f.url.includes(part)
const any = (...ms: Array<(f: { functionName: string, url: string }) => boolean>) => (f: { functionName: string, url: string }): boolean => ms.some((m) => m(f))

/** The per-request work issue 12 asks about, each by the frames that do it (inclusive time). */
const writing = any(fn('writePayload'), fn('writeHead'), fn('end', '_http_outgoing'), fn('_storeHeader'))
const serialising = any(fn('serialize', 'fastify/lib/reply'), (f) => f.url === '' && /^(anonymous\d*|main)$/.test(f.functionName))
const inPackage = inFile('/node_modules/')
const inRqs = inFile('/dist/')

/**
 * The per-request work issue 12 asks about, each by the frames that do it
 * (inclusive time; `exclude` leaves out what a frame calls that another probe
 * counts, e.g. the handler's reply.send). Probes still overlap where one
 * stage calls the next (the request event runs inside node's parser callback).
 */
const PROBES: Probe[] = [
  { label: 'node: HTTP parsing and events, without what Fastify and rqs do inside', match: any(fn('parserOnHeadersComplete'), fn('parserOnIncoming'), fn('onParserExecute')), exclude: any(inPackage, inRqs) },
  // find-my-way calls the route's handler: leave out Fastify and rqs below it.
  { label: 'fastify: routing (find-my-way lookup)', match: inFile('/find-my-way/'), exclude: any(inFile('/fastify/lib/'), inRqs) },
  { label: 'rqs: version negotiation (negotiate, deriveConstraint)', match: any(fn('negotiate', 'versioning'), fn('deriveConstraint', 'versioning')) },
  { label: 'rqs: request id (genReqId → requestId, randomUUID)', match: any(fn('requestId', 'request-id'), fn('randomUUID')) },
  // A hook's done() runs the rest of the request synchronously: leave out what follows it (hooks.js).
  { label: 'rqs: server-wide onRequest hooks (the start: request id, timeouts, Host check, protective headers)', match: any(inFile('/dist/http/routes/request-start'), inFile('/dist/http/transport/request-id'), inFile('/dist/http/transport/timeouts'), inFile('/dist/http/transport/deadline-sweep'), inFile('/dist/http/security/hosts'), inFile('/dist/http/security/headers')), exclude: inFile('fastify/lib/hooks') },
  { label: 'rqs: versioned-mount onRequest hook (Vary, Content-Type, deprecation)', match: any(fn('applyChoice'), (f) => f.url.includes('/dist/http/rest/mounts') && f.functionName === ''), exclude: inFile('fastify/lib/hooks') },
  { label: 'fastify: hook runners (their own code only)', match: inFile('fastify/lib/hooks'), exclude: (f) => !f.url.includes('fastify/lib/hooks') },
  { label: 'fastify: request/reply objects and the per-request child logger', match: any(fn('createChildLogger'), fn('Request', 'fastify/lib/request'), fn('Reply', 'fastify/lib/reply'), fn('child', '/pino/')) },
  { label: '   of which pino (child logger bindings; no line is written)', match: inFile('/pino/') },
  // The parser's done() goes on into validation and the handler: leave those out.
  { label: 'fastify: body reading and parsing (content-type parser, JSON.parse)', match: any(inFile('content-type-parser'), inFile('fastify/lib/content-type.js'), fn('parse', ''), inFile('secure-json-parse'), inFile('lossless-json'), inFile('json-body')), exclude: any(inFile('fastify/lib/handle-request'), inFile('/services/')) },
  { label: 'fastify: validation (ajv validators)', match: any(fn('validate', 'fastify/lib/validation'), fn('validateSchema')) },
  { label: 'rqs: route handlers (services/), without serialising and writing', match: inFile('/services/'), exclude: any(writing, serialising) },
  { label: 'rqs: stores', match: inFile('/stores/'), exclude: inPackage },
  { label: '   of which the change log (a change per write, handed to the feed)', match: any(inFile('/stores/memory/changes'), inFile('/services/events/')) },
  { label: 'rqs: Idempotency-Key wrapper on writes (no key sent)', match: inFile('/dist/http/rest/idempotency'), exclude: any(inFile('/services/'), inFile('/stores/'), writing, serialising) },
  { label: 'pg: pool (connect, release, idle timers)', match: inFile('/pg-pool/'), exclude: any(inFile('/pg/lib/'), inFile('/pg-protocol/')) },
  { label: 'pg: client and query (named statement, results), without protocol and types', match: inFile('/pg/lib/'), exclude: any(inFile('/pg-protocol/'), inFile('/pg-types/'), inFile('/pg-pool/'), inRqs) },
  { label: 'pg: protocol (serialising messages, parsing answers)', match: inFile('/pg-protocol/'), exclude: inFile('/pg/lib/') },
  { label: 'pg: type parsers (pg-types)', match: any(inFile('/pg-types/'), inFile('/postgres-')) },
  { label: 'fastify: serialisation (reply serialize → fast-json-stringify)', match: serialising },
  { label: 'node: writing the answer (writeHead, end → writev syscall)', match: writing },
  { label: '   of which the writev/write syscalls', match: any(fn('writev'), fn('writeUtf8String'), fn('writeLatin1String'), fn('writeBuffer')) },
  { label: 'GraphQL: graphql-http handler, without the engine and writing', match: inFile('/graphql-http/'), exclude: any(inFile('/services/albums/engine'), writing) },
  { label: 'GraphQL: rqs engine (prepare, execute, stringify)', match: inFile('/services/albums/engine') },
  { label: 'GraphQL: graphql-jit (compiled query, its serialiser)', match: inFile('/graphql-jit/') },
  { label: 'GraphQL: graphql-js', match: inFile('/node_modules/graphql/') },
  { label: 'V8: garbage collector', match: fn('(garbage collector)') }
]

const only = flags.only?.split(',') ?? Object.keys(SCENARIOS)
const duration = Number(flags.duration)
const dir = join(BENCH_DIR, 'results', 'profiles')
mkdirSync(dir, { recursive: true })
if (flags['no-build'] !== true && flags.summarise !== true) await buildDist()

/** The BENCH_STORE for a scenario and how to remove what it made; undefined for PostgreSQL without DATABASE_URL. */
async function storeFor (kind: StoreKind): Promise<{ env: Record<string, string>, drop: () => Promise<void> } | undefined> {
  switch (kind) {
    case 'memory': return { env: {}, drop: async () => {} }
    case 'sqlite': {
      const temp = mkdtempSync(join(tmpdir(), 'rqs-profile-'))
      return { env: { BENCH_STORE: `sqlite:${join(temp, 'bench.db')}` }, drop: async () => { rmSync(temp, { recursive: true, force: true }) } }
    }
    case 'postgres': {
      const url = process.env.DATABASE_URL
      if (url === undefined) return undefined
      const db = await freshDatabase(url)
      onInterrupt(db.drop)
      return { env: { BENCH_STORE: db.url }, drop: db.drop }
    }
  }
}

const sections: string[] = []
const summaries = new Map<string, { summary: ProfileSummary, requests: number }>()
try {
  for (const id of only) {
    const scenario = SCENARIOS[id]
    if (scenario === undefined) throw new Error(`unknown scenario ${id}; known: ${Object.keys(SCENARIOS).join(', ')}`)
    const file = join(dir, `${id}.cpuprofile`)
    if (flags.summarise === true) {
      const saved = JSON.parse(readFileSync(join(dir, `${id}.window.json`), 'utf8')) as { startUs: number, endUs: number, requests: number }
      const summary = summarise(file, saved, PROBES)
      summaries.set(id, { summary, requests: saved.requests })
      sections.push(formatSummary(`${scenario.title} (${id})`, summary, saved.requests))
      continue
    }
    rmSync(file, { force: true })
    const connections = Number(flags.connections ?? scenario.connections ?? 50)
    const store = await storeFor(scenario.store ?? 'memory')
    if (store === undefined) {
      sections.push(`## ${scenario.title} (${id})\n\nskipped: DATABASE_URL is not set\n`)
      continue
    }
    // A directory of its own: under tsx (fastify-bare.ts) the loader's thread writes a profile too; the main thread's is the largest.
    const profileDir = join(dir, `${id}.threads`)
    rmSync(profileDir, { recursive: true, force: true })
    const nodeArgs = ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-interval', flags.interval!]
    const spec = scenario.server === 'fastify-bare'
      ? { label: id, script: 'fastify-bare.ts', nodeArgs }
      : rqsSpec(`rqs-${id}`, scenario.students, { nodeArgs, env: store.env })
    const server = await startServer(spec).catch(async (err: unknown) => { await store.drop(); throw err })
    let requests = 0
    let window = { startUs: 0, endUs: 0 }
    try {
      await load(server.origin, scenario.request, { connections, durationSec: 1 }, server.pid)
      // process.hrtime and V8's profile clock are both CLOCK_MONOTONIC, in ns and µs.
      const start = Number(process.hrtime.bigint() / 1000n)
      const r = await load(server.origin, scenario.request, { connections, durationSec: duration }, server.pid)
      window = { startUs: start, endUs: Number(process.hrtime.bigint() / 1000n) }
      requests = r.requests
      process.stderr.write(`${scenario.title}: ${Math.round(r.rps)} req/s, p99 ${r.p99Ms.toFixed(2)} ms, server CPU ${Math.round((r.serverCpu ?? 0) * 100)}%\n`)
    } finally {
      await server.stop()
      await store.drop()
    }
    const written = existsSync(profileDir) ? readdirSync(profileDir).map((f) => join(profileDir, f)).sort((a, b) => statSync(b).size - statSync(a).size) : []
    if (written[0] === undefined) throw new Error(`no profile written for ${id}`)
    renameSync(written[0], file)
    rmSync(profileDir, { recursive: true, force: true })
    writeFileSync(join(dir, `${id}.window.json`), JSON.stringify({ ...window, requests }))
    const summary = summarise(file, window, PROBES)
    summaries.set(id, { summary, requests })
    const text = formatSummary(`${scenario.title} (${id})`, summary, requests)
    writeFileSync(join(dir, `${id}.md`), text)
    sections.push(text)
  }
} finally {
  killAll()
}
for (const [id, scenario] of Object.entries(SCENARIOS)) {
  const rqs = summaries.get(id)
  const fastify = scenario.versus === undefined ? undefined : summaries.get(scenario.versus)
  if (rqs === undefined || fastify === undefined) continue
  const text = formatBeyond(`${scenario.title}: what rqs pays beyond Fastify with nothing added (${id} − ${scenario.versus!})`, rqs, fastify)
  writeFileSync(join(dir, `${id}-beyond-fastify.md`), text)
  sections.push(text)
}
console.log(sections.join('\n'))
