// @ts-check
// The server under test: rqs as `npm start` runs it — the compiled dist/ under plain node (no
// TypeScript loader, which would add ~40 MB of RSS and its own thread), default configuration
// (memory store, info logging, no access log; BENCH_METRICS=1 adds --metrics, BENCH_SECURITY_HEADERS=on|off: the default protective headers, or --no-security-headers). BENCH_STORE picks another store (`sqlite:<file>`
// or a postgres:// URL). Before listening it creates BENCH_STUDENTS students (BENCH_STUDENT_INPUT)
// and one address (BENCH_ADDRESS_INPUT, id 1) through the store API in this process, no HTTP;
// then prints `MEMORY {...}` after a GC (with --expose-gc) and `LISTENING <port>`.
// Plain JavaScript because it runs without tsx; bench/run.ts compiles dist/ from src/ first.
import process from 'node:process'
import { listenAndReport } from './listen.mjs'
import { buildServer } from '../../dist/server.js'
import { defaultConfig } from '../../dist/options.js'
import { openStores } from '../../dist/stores/index.js'
import { declarationsOf, SERVICES } from '../../dist/services/index.js'
import { studentStore } from '../../dist/services/students/records.js'
import { addressStore } from '../../dist/services/addresses/records.js'
import { collectionStore } from '../../dist/services/records/routes.js'

const env = process.env
const count = Number(env.BENCH_STUDENTS ?? '1')
const studentInput = JSON.parse(env.BENCH_STUDENT_INPUT ?? 'null')
const addressInput = JSON.parse(env.BENCH_ADDRESS_INPUT ?? 'null')
if (!Number.isSafeInteger(count) || studentInput === null || addressInput === null) throw new Error('BENCH_STUDENTS, BENCH_STUDENT_INPUT and BENCH_ADDRESS_INPUT are required')

const config = { ...defaultConfig(), port: 0 }
const store = env.BENCH_STORE ?? 'memory'
if (store.startsWith('sqlite:')) config.store = { ...config.store, kind: 'sqlite', path: store.slice('sqlite:'.length) }
else if (store.startsWith('postgres')) config.store = { ...config.store, kind: 'postgres', url: store }
// BENCH_METRICS=1: --metrics (issue 11), to price the per-request counting against the default.
if (env.BENCH_METRICS === '1') config.security = { ...config.security, metrics: true }
// BENCH_SECURITY_HEADERS=on|off: the protective headers rqs sends by default (nosniff, no framing; issue 19),
// or none (--no-security-headers), whatever the defaults are.
if (env.BENCH_SECURITY_HEADERS !== undefined) {
  if (env.BENCH_SECURITY_HEADERS !== 'on' && env.BENCH_SECURITY_HEADERS !== 'off') throw new Error('BENCH_SECURITY_HEADERS must be on or off')
  config.security = { ...config.security, securityHeaders: false, protectiveHeaders: env.BENCH_SECURITY_HEADERS === 'on' }
}

// The stores keep what the services declare, as the server opens them; the built-in services' views write the records.
const stores = await openStores(config.store, undefined, declarationsOf(SERVICES, config))
const students = studentStore(collectionStore(stores, 'students'))
for (let i = 0; i < count; i++) await students.create(studentInput)
await addressStore(collectionStore(stores, 'addresses')).create(addressInput)

const app = await buildServer(config, { stores })
await listenAndReport(app, () => stores.close())
