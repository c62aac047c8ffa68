/**
 * npm run bench: rqs against what its users would otherwise run, every row
 * of issue 12 (see bench/README.md), and the rows of the later issues on
 * declared collections (bulk creates, aggregates, filter=, expand, webhooks,
 * the cost of unused features), which live in bench/rows/. Servers run one process each on CPU 0,
 * the load generator (wrk, else autocannon) on CPU 1, everything on
 * 127.0.0.1 and bounded in time. Prints one Markdown table and writes
 * bench/results/latest.json and its chart, latest.svg (quick.json and
 * quick.svg for --quick).
 *
 *   npm run bench                          # every row (≈ 15 min)
 *   npm run bench -- --quick               # every row, tiny and bounded (CI: proves the bench works)
 *   npm run bench -- --only get-student,graphql-post --rounds 5 --duration 5
 *   npm run bench -- --rows                # lists the row ids (and their groups: --only webhooks runs both stores' rows)
 *   npm run bench -- --quick --no-build    # without compiling src/ to dist/ first (CI, right after npm ci)
 *
 * The PostgreSQL rows need DATABASE_URL (a database to connect to; the
 * bench creates and drops its own beside it) and pgbench.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compare, freshHttpContender, httpContender, type AnswerCheck, type Goal, type RowResult, type Settings } from './lib/compare.js'
import { largeList } from './lib/large.js'
import { GENERATOR } from './lib/load.js'
import { ServerPool, type ServerRecipe } from './lib/pool.js'
import { freshDatabase, pgbenchInit, pgbenchRun } from './lib/postgres.js'
import { LOAD_CPU, PINNING, ROOT, SERVER_CPU, disablePinning, killAll, onInterrupt, pinSelfToLoadCore, type RunningServer, type ServerSpec } from './lib/procs.js'
import { formatTable, writeResults } from './lib/report.js'
import { ratioChart } from './lib/chart.js'
import { measureStartup } from './lib/startup.js'
import { buildDist, warnIfUnbundled } from './lib/build.js'
import { MAX_COLLECTIONS, MAX_COLUMNS } from '../src/services/collections/limits.js'
import type { BareRoute } from './servers/node-http.js'
import { R, rqsSpec } from './lib/requests.js'
import type { LoadRequest } from './lib/load.js'
import { RQS_HEADERS, STUDENT_BODY, STUDENT_INPUT } from './servers/shared.js'
import { fold } from '../src/domain/case-fold.js'
import { FEED_WRITES_ROW, feedWritesRow, runFeedWrites } from './feed-writes.js'
import { noDatabase, statusIs, type RowContext, type RowSpec } from './lib/row.js'
import { recordRows } from './rows/records.js'
import { webhookRows } from './rows/webhooks.js'
import { featureRows } from './rows/features.js'

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    duration: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string' },
    rows: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    out: { type: 'string' }
  }
})

const quick = flags.quick === true
const settings: Settings = {
  quick,
  durationSec: Number(flags.duration ?? (quick ? 1 : 5)),
  rounds: Number(flags.rounds ?? (quick ? 1 : 3)),
  warmSec: 1,
  connections: Number(flags.connections ?? 50),
  maxRequests: quick ? 100 : undefined
}
/** Sizes of the collection rows: the issue's, or tiny ones in quick mode. */
const sizes = quick
  ? { list: 1000, large: 20_000, rss: 20_000 }
  : { list: 10_000, large: 1_600_000, rss: 1_000_000 }
const PG_CLIENTS = 10
/** How many servers quick mode starts at once. */
const QUICK_STARTS = 4
const DATABASE_URL = process.env.DATABASE_URL

// ---------------------------------------------------------------- servers

const temp = mkdtempSync(join(tmpdir(), 'rqs-bench-run-'))
const cleanups: Array<() => Promise<void>> = [async () => { rmSync(temp, { recursive: true, force: true }) }]

/** Headers a fixed answer copies from rqs (the rest are per connection or recomputed). */
const SKIP_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'content-encoding'])

/** rqs's exact answer to `request`, as a fixed route of the bare server at `path`. */
async function capture (server: RunningServer, request: LoadRequest, path = request.path): Promise<BareRoute> {
  // Uncompressed, as wrk asks for it (fetch would otherwise ask for gzip and hand back the decoded body).
  const res = await fetch(`${server.origin}${request.path}`, { method: request.method, body: request.body, headers: { ...request.headers, 'accept-encoding': 'identity' } })
  const headers: Record<string, string> = {}
  res.headers.forEach((value, name) => { if (!SKIP_HEADERS.has(name)) headers[name] = value })
  return { kind: 'fixed', method: request.method, path, status: res.status, headers, body: await res.text() }
}

function bareSpec (label: string, routes: BareRoute[]): ServerSpec {
  const file = join(temp, `${label.replace(/\W+/g, '-')}.json`)
  writeFileSync(file, JSON.stringify(routes))
  return { label, script: 'node-http.ts', env: { BENCH_ROUTES_FILE: file } }
}

/** The bare server's path for the titleFilter query (its routes are keyed by method and path). */
const FILTER_PATH = '/graphql?filter'

let postgres: { url: string, drop: () => Promise<void> } | undefined

/** What the modules of rows beside this file get: the settings, and where declared servers keep their files and databases. */
const rowContext: RowContext = {
  settings,
  quick,
  declared: { temp, databaseUrl: DATABASE_URL, cleanup: (drop) => { cleanups.push(drop) } },
  willRun: (id) => selected.some((r) => r.id === id)
}
/** The rows of the verbs, relations, webhooks and feature-cost issues, each module with its servers. */
const rowModules = [recordRows(rowContext), webhookRows(rowContext), featureRows(rowContext)]

const recipes: Record<string, ServerRecipe> = {
  ...Object.assign({}, ...rowModules.map((m) => m.recipes)) as Record<string, ServerRecipe>,
  'ceiling-bare': async () => bareSpec('ceiling', [{ kind: 'fixed', method: 'GET', path: R.getStudent.path, status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: STUDENT_BODY }]),
  rqs: rqsSpec('rqs', 1),
  'rqs-framework': rqsSpec('rqs-framework', 1),
  bare: async (pool) => {
    const rqs = await pool.get('rqs')
    return bareSpec('bare', [
      await capture(rqs, R.getStudent),
      await capture(rqs, R.getAddress),
      await capture(rqs, R.graphqlPost),
      await capture(rqs, R.graphqlGet),
      await capture(rqs, R.graphqlFilter, FILTER_PATH),
      { kind: 'echo', method: 'POST', path: '/students', status: 201, envelope: true, id: 'next' },
      { kind: 'echo', method: 'PUT', path: '/students', status: 200, envelope: true, id: 'keep' },
      { kind: 'echo', method: 'POST', path: '/addresses', status: 201, envelope: false, id: 'next' },
      { kind: 'echo', method: 'PUT', path: '/addresses/1', status: 200, envelope: false, id: 1 }
    ])
  },
  'fastify-bare': { label: 'fastify-bare', script: 'fastify-bare.ts' },
  'fastify-bare-headers': { label: 'fastify-bare-headers', script: 'fastify-bare.ts', env: { BENCH_RQS_HEADERS: '1' } },
  fastify: { label: 'fastify', script: 'fastify.ts' },
  express: { label: 'express', script: 'express.ts' },
  apollo: { label: 'apollo', script: 'apollo.ts' },
  yoga: { label: 'yoga', script: 'yoga.ts' },
  'rqs-list': rqsSpec('rqs-list', sizes.list),
  'bare-list': async (pool) => bareSpec('bare-list', [await capture(await pool.get('rqs-list'), R.listStudents)]),
  'fastify-list': { label: 'fastify-list', script: 'fastify.ts', env: { BENCH_STUDENTS: String(sizes.list) } },
  'express-list': { label: 'express-list', script: 'express.ts', env: { BENCH_STUDENTS: String(sizes.list) } },
  'rqs-large': rqsSpec('rqs-large', sizes.large, { nodeArgs: ['--expose-gc'] }),
  'rqs-rss': rqsSpec('rqs-rss', sizes.rss, { nodeArgs: ['--expose-gc'] }),
  'rqs-memory': rqsSpec('rqs-memory', 1, { nodeArgs: ['--expose-gc'] }),
  'rqs-metrics': rqsSpec('rqs-metrics', 1, { env: { BENCH_METRICS: '1' } }),
  // Both set explicitly, so the row means the same whichever way the default of --security-headers points.
  'rqs-headers-on': rqsSpec('rqs-headers-on', 1, { env: { BENCH_SECURITY_HEADERS: 'on' } }),
  'rqs-headers-off': rqsSpec('rqs-headers-off', 1, { env: { BENCH_SECURITY_HEADERS: 'off' } }),
  // The same server as rqs-headers-on in a process of its own: the `headers-self` row's second place.
  'rqs-headers-on-2': rqsSpec('rqs-headers-on-2', 1, { env: { BENCH_SECURITY_HEADERS: 'on' } }),
  'rqs-sqlite': rqsSpec('rqs-sqlite', 1, { env: { BENCH_STORE: `sqlite:${join(temp, 'bench.db')}` } }),
  'rqs-postgres': async () => {
    postgres = await freshDatabase(DATABASE_URL!)
    cleanups.push(async () => { await postgres?.drop() })
    onInterrupt(async () => { await postgres?.drop() })
    await pgbenchInit(postgres.url)
    return rqsSpec('rqs-postgres', 1, { env: { BENCH_STORE: postgres.url } })
  }
}

// ---------------------------------------------------------------- rows

const albumsCount = (n: number) => (s: number, body: string): string | undefined =>
  s === 200 && (JSON.parse(body) as { data?: { albums?: unknown[] } }).data?.albums?.length === n ? undefined : `not ${n} albums`

/** A REST row: rqs against the bare server, Fastify (nothing added, when asked; the hand-written service) and Express 5. */
function restRow (id: string, title: string, request: LoadRequest, status: number, bareLabel: string, options: RestRowOptions = {}): RowSpec {
  const { goal, rqsCheck, nothingAdded = false } = options
  // Against Fastify with nothing added, rqs and that baseline run in a fresh process each every round, which has
  // answered nothing but this row's requests: the shared one has answered the bare server's captures (GraphQL among
  // them) and the other rows' load, which leaves V8's inline caches in the code they share wider and slower, and
  // one process is one draw of V8's (bench/README.md, "One process is one draw"): the spread shows the draws.
  const warm = settings.quick ? 0 : settings.warmSec
  return {
    id,
    title,
    servers: [...(nothingAdded ? [] : ['rqs']), 'bare', 'fastify', 'express'],
    run: async (s) => await compare({ id, title, goal: goal === undefined ? undefined : { against: bareLabel, ...goal } }, [
      nothingAdded
        ? freshHttpContender('rqs (default config)', 'target', async () => recipes['rqs-framework'] as ServerSpec, request, settings.connections, warm, rqsCheck ?? statusIs(status))
        : httpContender('rqs (default config)', 'target', s.rqs!, request, settings.connections, rqsCheck ?? statusIs(status)),
      httpContender(bareLabel, 'baseline', s.bare!, request, settings.connections, statusIs(status)),
      ...(nothingAdded
        ? [
            freshHttpContender(FASTIFY_BARE, 'baseline', async () => recipes['fastify-bare'] as ServerSpec, request, settings.connections, warm, statusIs(status)),
            // What rqs's default response headers alone cost the framework: the part of the gap to the line above that is Node's.
            freshHttpContender(FASTIFY_BARE_HEADERS, 'baseline', async () => recipes['fastify-bare-headers'] as ServerSpec, request, settings.connections, warm, hasRqsHeaders(status))
          ]
        : []),
      httpContender(FASTIFY_SERVICE, 'baseline', s.fastify!, request, settings.connections, statusIs(status)),
      httpContender('express 5', 'baseline', s.express!, request, settings.connections, statusIs(status))
    ], settings)
  }
}

interface RestRowOptions {
  /** The target; taken against the bare server unless `against` names another line. */
  goal?: Omit<Goal, 'against'> & { against?: string }
  /** What rqs's answer must be (default: the status). */
  rqsCheck?: AnswerCheck
  /** Also Fastify with nothing added (servers/fastify-bare.ts): the framework's ceiling for this request. */
  nothingAdded?: boolean
}

/** Fastify 5 with one route per request and nothing else (servers/fastify-bare.ts). */
const FASTIFY_BARE = 'fastify, nothing added'
/** The same with rqs's four default response headers besides Fastify's (servers/fastify-bare.ts, BENCH_RQS_HEADERS). */
const FASTIFY_BARE_HEADERS = 'fastify, nothing added + rqs\'s headers'
/** The status, and the headers rqs sends by default present: the line measures what it says it does. */
const hasRqsHeaders = (status: number): AnswerCheck => (s, _body, headers) => {
  if (s !== status) return `status ${s}, expected ${status}`
  return ['x-request-id', ...Object.keys(RQS_HEADERS)].every((h) => headers.get(h) !== null) ? undefined : 'not every header of rqs'
}
/** Fastify 5 as a hand-written service (servers/fastify.ts); the row was "fastify alone" until issue 20. */
const FASTIFY_SERVICE = 'fastify, hand-written service'

/** A GraphQL row: rqs against the bare server, Apollo Server 5 and GraphQL Yoga 5. */
function graphqlRow (id: string, title: string, request: LoadRequest, albums: number, goal?: Omit<Goal, 'against'>, barePath = request.path): RowSpec {
  const bareLabel = 'node:http (same bytes)'
  return {
    id,
    title,
    servers: ['rqs', 'bare', 'apollo', 'yoga'],
    run: async (s) => await compare({ id, title, goal: goal === undefined ? undefined : { ...goal, against: bareLabel } }, [
      httpContender('rqs (default config)', 'target', s.rqs!, request, settings.connections, albumsCount(albums)),
      httpContender(bareLabel, 'baseline', s.bare!, { ...request, path: barePath }, settings.connections, albumsCount(albums)),
      httpContender('apollo server 5', 'baseline', s.apollo!, request, settings.connections, albumsCount(albums)),
      httpContender('graphql yoga 5', 'baseline', s.yoga!, request, settings.connections, albumsCount(albums))
    ], settings)
  }
}

/** 200, and the protective headers present (`on`) or absent: the row compares what it says it does. */
const hasSecurityHeaders = (on: boolean): AnswerCheck => (s, _body, headers) => {
  if (s !== 200) return `status ${s}, expected 200`
  const sent = headers.get('x-content-type-options') === 'nosniff' && headers.get('x-frame-options') === 'DENY'
  return sent === on ? undefined : on ? 'no security headers' : 'security headers although off'
}

const ROWS: RowSpec[] = [
  {
    id: 'ceiling',
    title: 'generator ceiling: GET bare node:http',
    servers: ['ceiling-bare'],
    run: async (s) => {
      const r = await compare({ id: 'ceiling', title: 'generator ceiling' }, [
        httpContender('node:http (fixed bytes)', 'target', s['ceiling-bare']!, R.getStudent, settings.connections, statusIs(200))
      ], { ...settings, maxRequests: undefined }) // the generator itself runs even in quick mode (1 s), to prove it works
      const line = r.lines[0]!
      line.note = `generator CPU ${line.generatorCpu === undefined ? '–' : `${Math.round(line.generatorCpu * 100)}%`}`
      return { ...r, title: 'generator ceiling: GET bare node:http' }
    }
  },
  restRow('get-student', 'GET /students/{id}', R.getStudent, 200, 'node:http (same bytes)', {
    // The framework's ceiling, by CPU per request (issue 35): what rqs adds to Fastify is what it controls.
    goal: { against: FASTIFY_BARE, min: 0.97, text: '≥ 0.97× Fastify, nothing added' },
    rqsCheck: (s, b) => s === 200 && b === STUDENT_BODY ? undefined : 'not the seeded student',
    nothingAdded: true
  }),
  restRow('get-address', 'GET /addresses/{id}', R.getAddress, 200, 'node:http (same bytes)'),
  graphqlRow('graphql-post', 'GraphQL albums (POST, all fields)', R.graphqlPost, 3, { min: 0.8, text: '≥ 0.80× bare' }),
  graphqlRow('graphql-get', 'GraphQL albums (GET)', R.graphqlGet, 3),
  graphqlRow('graphql-filter', 'GraphQL albums(titleFilter) (POST)', R.graphqlFilter, 1, undefined, FILTER_PATH),
  restRow('post-student', 'POST /students', R.postStudent, 201, 'node:http JSON echo', { goal: { against: FASTIFY_BARE, min: 0.92, text: '≥ 0.92× Fastify, nothing added' }, nothingAdded: true }),
  restRow('put-student', 'PUT /students', R.putStudent, 200, 'node:http JSON echo'),
  restRow('post-address', 'POST /addresses', R.postAddress, 201, 'node:http JSON echo'),
  restRow('put-address', 'PUT /addresses/{id}', R.putAddress, 200, 'node:http JSON echo'),
  {
    id: 'list',
    title: `GET /students holding ${sizes.list.toLocaleString('en')}`,
    servers: ['rqs-list', 'bare-list', 'fastify-list', 'express-list'],
    run: async (s) => {
      const title = `GET /students holding ${sizes.list.toLocaleString('en')}`
      const holds = (s: number, b: string): string | undefined =>
        s === 200 && (JSON.parse(b) as { body: unknown[] }).body.length === sizes.list ? undefined : `not ${sizes.list} students`
      return await compare({ id: 'list', title, goal: { against: 'express 5', min: 5, text: '≥ 5× express' } }, [
        httpContender('rqs (default config)', 'target', s['rqs-list']!, R.listStudents, settings.connections, holds),
        httpContender('express 5', 'baseline', s['express-list']!, R.listStudents, settings.connections, holds),
        httpContender('node:http (same bytes)', 'baseline', s['bare-list']!, R.listStudents, settings.connections, holds),
        httpContender(FASTIFY_SERVICE, 'baseline', s['fastify-list']!, R.listStudents, settings.connections, holds)
      ], settings)
    }
  },
  {
    id: 'graphql-page',
    title: `GraphQL page of 50 students (filter) vs REST, holding ${sizes.list.toLocaleString('en')}`,
    servers: ['rqs-list'],
    run: async (s) => {
      const title = `GraphQL page of 50 students (filter) vs REST, holding ${sizes.list.toLocaleString('en')}`
      const fifty = (s: number, b: string): string | undefined =>
        s === 200 && (JSON.parse(b) as { data?: { students?: { edges?: unknown[] } } }).data?.students?.edges?.length === 50 ? undefined : 'not a page of 50 students'
      return await compare({ id: 'graphql-page', title, goal: { against: 'rqs REST GET /students?limit=50&age[gte]=…', min: 0.85, text: '≥ 0.85× REST' } }, [
        httpContender('rqs GraphQL students(first: 50, filter)', 'target', s['rqs-list']!, R.graphqlStudentsPage, settings.connections, fifty),
        httpContender('rqs REST GET /students?limit=50&age[gte]=…', 'baseline', s['rqs-list']!, R.restStudentsPage, settings.connections, statusIs(200))
      ], settings)
    }
  },
  {
    id: 'metrics-get',
    title: 'GET /students/{id} with --metrics',
    servers: ['rqs-metrics', 'rqs-memory'],
    run: async (s) => await compare({ id: 'metrics-get', title: 'GET /students/{id} with --metrics', goal: { against: 'rqs, metrics off', min: 0.95, text: '≥ 0.95× metrics off' } }, [
      httpContender('rqs, --metrics', 'target', s['rqs-metrics']!, R.getStudent, settings.connections, statusIs(200)),
      httpContender('rqs, metrics off', 'baseline', s['rqs-memory']!, R.getStudent, settings.connections, statusIs(200))
    ], settings)
  },
  {
    id: 'headers',
    title: 'GET /students/{id} with the default protective headers',
    // A fresh process of each server every round: the gap judged (a few per cent) is smaller than what one
    // process's V8 draw can be (bench/README.md, "One process is one draw").
    servers: [],
    run: async () => await compare({ id: 'headers', title: 'GET /students/{id} with the default protective headers', goal: { against: 'rqs, headers off', min: 0.98, text: '≥ 0.98× headers off' } }, [
      freshHttpContender('rqs, headers on', 'target', async () => recipes['rqs-headers-on'] as ServerSpec, R.getStudent, settings.connections, settings.quick ? 0 : settings.warmSec, hasSecurityHeaders(true)),
      freshHttpContender('rqs, headers off', 'baseline', async () => recipes['rqs-headers-off'] as ServerSpec, R.getStudent, settings.connections, settings.quick ? 0 : settings.warmSec, hasSecurityHeaders(false))
    ], settings)
  },
  {
    // Two processes of one server, built and loaded alike: what separates them is the process (its JIT's outcome,
    // where its memory landed), which a row keeps for all its rounds. The ratio is the bias such a row can show
    // with no difference at all, to read the rows that judge a gap of a few percent (`headers`) against.
    id: 'headers-self',
    title: 'GET /students/{id}, headers on, against a second process of the same server',
    servers: ['rqs-headers-on', 'rqs-headers-on-2'],
    run: async (s) => await compare({ id: 'headers-self', title: 'GET /students/{id}, headers on, against a second process of the same server' }, [
      httpContender('rqs, headers on', 'target', s['rqs-headers-on']!, R.getStudent, settings.connections, hasSecurityHeaders(true)),
      httpContender('rqs, headers on, second process', 'baseline', s['rqs-headers-on-2']!, R.getStudent, settings.connections, hasSecurityHeaders(true))
    ], settings)
  },
  {
    id: 'sqlite-get',
    title: 'SQLite GET /students/{id}',
    servers: ['rqs-sqlite', 'rqs-memory'],
    run: async (s) => await compare({ id: 'sqlite-get', title: 'SQLite GET /students/{id}', goal: { against: 'rqs, memory store', min: 0.9, text: '≥ 0.90× memory' } }, [
      httpContender('rqs, SQLite store', 'target', s['rqs-sqlite']!, R.getStudent, settings.connections, statusIs(200)),
      httpContender('rqs, memory store', 'baseline', s['rqs-memory']!, R.getStudent, settings.connections, statusIs(200))
    ], settings)
  },
  {
    id: 'pg-get',
    title: `PostgreSQL GET /students/{id}, ${PG_CLIENTS} clients`,
    servers: ['rqs-postgres'],
    skip: noDatabase,
    run: async (s) => await compare({ id: 'pg-get', title: `PostgreSQL GET /students/{id}, ${PG_CLIENTS} clients`, goal: { against: `pgbench -S -c ${PG_CLIENTS}`, min: 0.7, text: '≥ 0.7× pgbench -S' } }, [
      httpContender('rqs, PostgreSQL store', 'target', s['rqs-postgres']!, R.getStudent, PG_CLIENTS, statusIs(200)),
      {
        label: `pgbench -S -c ${PG_CLIENTS}`,
        role: 'baseline',
        measure: async (o) => await pgbenchRun(postgres!.url, { builtin: 'select-only' }, PG_CLIENTS, { durationSec: o.durationSec, transactions: quick ? 30 : undefined })
      }
    ], { ...settings, connections: PG_CLIENTS })
  },
  {
    id: 'pg-post',
    title: `PostgreSQL POST /students, ${PG_CLIENTS} clients`,
    servers: ['rqs-postgres'],
    skip: noDatabase,
    run: async (s) => await compare({ id: 'pg-post', title: `PostgreSQL POST /students, ${PG_CLIENTS} clients`, goal: { against: `pgbench rqs_students_create -c ${PG_CLIENTS}`, min: 0.9, text: '≥ 0.9× pgbench' } }, [
      httpContender('rqs, PostgreSQL store', 'target', s['rqs-postgres']!, R.postStudent, PG_CLIENTS, statusIs(201)),
      {
        label: `pgbench rqs_students_create -c ${PG_CLIENTS}`,
        role: 'baseline',
        // The statement the store's create runs: the routine generated for the students table (src/stores/postgres/registry.ts).
        measure: async (o) => await pgbenchRun(postgres!.url, { sql: `SELECT o_id AS id FROM rqs_students_create(0, '${STUDENT_INPUT.firstName}', '${STUDENT_INPUT.lastName}', ${STUDENT_INPUT.age}, '${fold(STUDENT_INPUT.firstName)}', '${fold(STUDENT_INPUT.lastName)}');` }, PG_CLIENTS, { durationSec: o.durationSec, transactions: quick ? 30 : undefined })
      }
    ], { ...settings, connections: PG_CLIENTS })
  },
  {
    // Issue 20: the change feed must not serialise PostgreSQL's commits (bench/feed-writes.ts; its --http adds two instances).
    id: FEED_WRITES_ROW,
    title: 'PostgreSQL: 32 writers creating addresses through the store API, change feed on vs off',
    servers: [],
    skip: noDatabase,
    run: async () => {
      const options = { url: DATABASE_URL!, writers: 32, poolSize: 32, durationSec: settings.durationSec, rounds: settings.rounds }
      return feedWritesRow(await runFeedWrites(options, (line) => { process.stderr.write(`  ${FEED_WRITES_ROW} · ${line}\n`) }), options)
    }
  },
  ...rowModules.flatMap((m) => m.rows),
  {
    id: 'rss',
    title: `memory store holding ${sizes.rss.toLocaleString('en')} students`,
    servers: ['rqs-rss', 'rqs-memory'],
    run: async (s) => {
      const full = s['rqs-rss']!.memory
      const empty = s['rqs-memory']!.memory
      const mb = (b: number | undefined): string => b === undefined ? '–' : `${(b / 1024 / 1024).toFixed(0)} MB`
      return {
        id: 'rss',
        title: `memory store holding ${sizes.rss.toLocaleString('en')} students`,
        goal: '≤ 200 MB RSS',
        met: full === undefined ? undefined : full.rss <= 200 * 1024 * 1024,
        lines: [
          { label: 'rqs (default config)', role: 'target', note: `RSS ${mb(full?.rss)}, heap ${mb(full?.heapUsed)} after GC` },
          { label: 'rqs holding 1 student', role: 'baseline', note: `RSS ${mb(empty?.rss)}, heap ${mb(empty?.heapUsed)} after GC` }
        ],
        figures: { rssBytes: full?.rss ?? Number.NaN, heapUsedBytes: full?.heapUsed ?? Number.NaN, emptyRssBytes: empty?.rss ?? Number.NaN, emptyHeapUsedBytes: empty?.heapUsed ?? Number.NaN }
      }
    }
  },
  {
    id: 'start',
    title: 'rqs serve ready (first 200 from /healthz), memory store',
    servers: [],
    run: async () => {
      const collections = 20
      const f = await measureStartup(quick ? 1 : Math.max(5, settings.rounds), collections)
      const ms = (v: number): string => `${v.toFixed(0)} ms`
      const range = (r: number[]): string => `${ms(Math.min(...r))}–${ms(Math.max(...r))}`
      return {
        id: 'start',
        title: 'rqs serve ready (first 200 from /healthz), memory store',
        goal: `≤ 400 ms (default services), ≤ 1 s (${collections} declared collections), ≤ 3 s (at the declaration limits: ${MAX_COLLECTIONS} collections × ${MAX_COLUMNS / 2} string fields)`,
        // Judged by the CPU the process used until ready (steady on a shared machine, as every row's
        // CPU figure), on the slowest round so a verdict never rests on a lucky one; wall time beside it.
        met: Math.max(...f.plain.cpuRounds) <= 400 && Math.max(...f.declared.cpuRounds) <= 1000 && Math.max(...f.limits.cpuRounds) <= 3000,
        lines: [
          { label: 'default services', role: 'target', note: `CPU median ${ms(f.plain.cpuMedianMs)} (rounds ${range(f.plain.cpuRounds)}), wall median ${ms(f.plain.medianMs)} (${range(f.plain.rounds)})` },
          { label: `${collections} declared collections`, role: 'target', note: `CPU median ${ms(f.declared.cpuMedianMs)} (rounds ${range(f.declared.cpuRounds)}), wall median ${ms(f.declared.medianMs)} (${range(f.declared.rounds)})` },
          { label: `at the declaration limits (${MAX_COLLECTIONS} × ${MAX_COLUMNS / 2} string fields)`, role: 'target', note: `CPU median ${ms(f.limits.cpuMedianMs)} (rounds ${range(f.limits.cpuRounds)}), wall median ${ms(f.limits.medianMs)} (${range(f.limits.rounds)})` }
        ],
        figures: { plainCpuMedianMs: f.plain.cpuMedianMs, declaredCpuMedianMs: f.declared.cpuMedianMs, limitsCpuMedianMs: f.limits.cpuMedianMs, plainWallMedianMs: f.plain.medianMs, declaredWallMedianMs: f.declared.medianMs, limitsWallMedianMs: f.limits.medianMs }
      }
    }
  },
  {
    id: 'list-large',
    title: `GET /students holding ${sizes.large.toLocaleString('en')}`,
    servers: ['rqs-large'],
    run: async (s) => {
      const f = await largeList(s['rqs-large']!, R.listStudents.path, R.getStudent.path, 4)
      if (f.status !== 200) throw new Error(`the large list answered ${f.status}`)
      return {
        id: 'list-large',
        title: `GET /students holding ${sizes.large.toLocaleString('en')}`,
        goal: 'first byte ≤ 100 ms, RSS +≤ 64 MB, others p99 ≤ 50 ms',
        met: f.ttfbMs <= 100 && f.rssGrowthMb <= 64 && f.smallP99Ms <= 50,
        lines: [{
          label: 'rqs (default config)',
          role: 'target',
          p99Ms: f.smallP99Ms,
          note: `${(f.bytes / 1e6).toFixed(1)} MB, first byte ${f.ttfbMs.toFixed(0)} ms, total ${(f.totalMs / 1000).toFixed(2)} s, ` +
            `RSS ${f.rssBeforeMb.toFixed(0)} → ${f.rssPeakMb.toFixed(0)} MB (+${f.rssGrowthMb.toFixed(0)}), ` +
            `meanwhile ${f.smallRequests} GET /students/0 by 4 clients: p99 ${f.smallP99Ms.toFixed(1)} ms, max ${f.smallMaxMs.toFixed(0)} ms`
        }],
        figures: { ...f }
      }
    }
  }
]

// ---------------------------------------------------------------- main

if (flags.rows === true) {
  for (const r of ROWS) console.log(`${r.id.padEnd(18)} ${r.group === undefined || r.group === r.id ? '' : `(${r.group}) `}${r.title}`)
  process.exit(0)
}

// A name in --only is a row's id or a group's (bulk-create: the row of every store).
const selected = flags.only === undefined ? ROWS : [...new Set(flags.only.split(',').flatMap((name) => {
  const rows = ROWS.filter((r) => r.id === name.trim() || r.group === name.trim())
  if (rows.length === 0) throw new Error(`unknown row "${name}"; known: ${[...new Set(ROWS.flatMap((r) => [r.id, r.group ?? r.id]))].join(', ')}`)
  return rows
}))]

if (quick) disablePinning()
pinSelfToLoadCore()
// rqs runs from dist/ as `npm start` does: built from src/ first, so the figures are of this tree.
if (flags['no-build'] !== true) await buildDist()
else warnIfUnbundled()
const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim() } catch { return 'unknown' } })()
const meta = {
  date: new Date().toISOString(),
  commit,
  node: process.version,
  generator: GENERATOR,
  pinning: PINNING ? `servers on CPU ${SERVER_CPU}, load generator on CPU ${LOAD_CPU} (taskset)` : quick ? 'none (quick mode)' : 'none (no taskset, or one core)',
  loadAverageAtStart: loadavg().map((v) => Number(v.toFixed(2))),
  quick,
  settings: { ...settings, sizes, pgClients: PG_CLIENTS }
}
console.log(`rqs bench ${quick ? '(quick: tiny bounded runs, figures mean nothing) ' : ''}— commit ${commit}, node ${process.version}, ${GENERATOR}, ${meta.pinning}`)
console.log(`median of ${settings.rounds} alternating round(s) of ${quick ? `${settings.maxRequests} requests from the runner (the ceiling row: 1 s of the generator)` : `${settings.durationSec} s`}, ${settings.connections} connections (PostgreSQL rows: ${PG_CLIENTS}); load average ${meta.loadAverageAtStart.join(' ')}`)

const pool = new ServerPool(recipes)
const results: RowResult[] = []
let failed = false
try {
  // Quick mode starts every server up front, a few at a time (CI wants the run short, and two cores gain
  // nothing from dozens of start-ups at once, which only push each past its time limit); a full run starts
  // them row by row.
  if (quick) {
    const keys = [...new Set(selected.flatMap((r) => r.skip?.() === undefined ? r.servers : []))]
    for (let i = 0; i < keys.length; i += QUICK_STARTS) await pool.getAll(keys.slice(i, i + QUICK_STARTS))
  }
  for (const [i, row] of selected.entries()) {
    const skip = row.skip?.()
    if (skip !== undefined) {
      results.push({ id: row.id, title: row.title, skipped: skip, lines: [] })
      continue
    }
    process.stderr.write(`${row.title}\n`)
    results.push(await row.run(await pool.getAll(row.servers)))
    await pool.release(new Set(selected.slice(i + 1).flatMap((r) => r.skip?.() === undefined ? r.servers : [])))
  }
} catch (err) {
  failed = true
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`)
} finally {
  await pool.release()
  for (const c of cleanups.reverse()) await c().catch(() => {})
  killAll()
}

// A quick run does not overwrite the reference figures of the last full run.
const file = writeResults({ ...meta, loadAverageAtEnd: loadavg().map((v) => Number(v.toFixed(2))) }, results, flags.out ?? (quick ? 'quick.json' : 'latest.json'))
const chart = file.replace(/\.json$/, '') + '.svg'
writeFileSync(chart, ratioChart(meta, results))
console.log(formatTable(results))
console.log(`\nwritten to ${file}, its chart to ${chart}`)
process.exitCode = failed ? 1 : 0
