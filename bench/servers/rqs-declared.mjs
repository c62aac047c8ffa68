// @ts-check
// rqs serving declared collections, as `rqs serve --collections <file>` runs it: the compiled dist/ under
// plain node, every option read from its RQS_* environment variable exactly as the CLI reads them
// (RQS_COLLECTIONS, RQS_STORE, RQS_WEBHOOKS, …; bench/lib/declared.ts sets them). Before listening it
// runs BENCH_SETUP, a JSON list of requests (seeding by bulk creates, registering webhooks) through
// Fastify's inject: the real routes, no socket. A step `{"seed": {collection, count, record}}` creates
// `count` records in bulk creates of 10 000, each made from the `record` template (bench/lib/declared.ts
// says how a template reads). Then prints `MEMORY {...}` after a GC (with --expose-gc) and
// `LISTENING <port>`.
import process from 'node:process'
import { listenAndReport } from './listen.mjs'
import { buildServer } from '../../dist/server.js'
import { resolveConfig } from '../../dist/options.js'

const BULK = 10_000

/** One value of a record template for record number `i` (0-based). */
function valueOf (template, i) {
  if (typeof template === 'string') return template.replaceAll('{i}', String(i))
  if (Array.isArray(template)) return template.map((t) => valueOf(t, i))
  if (template !== null && typeof template === 'object' && 'cycle' in template) {
    return (template.from ?? 0) + (((i + (template.offset ?? 0)) % template.cycle) * (template.step ?? 1))
  }
  return template
}

function recordOf (template, i) {
  return Object.fromEntries(Object.entries(template).map(([k, t]) => [k, valueOf(t, i)]))
}

const config = { ...resolveConfig({}, process.env), port: 0 }
const app = await buildServer(config)

async function send (method, url, payload) {
  const res = await app.inject({ method, url, payload, headers: { 'content-type': 'application/json' } })
  if (res.statusCode >= 300) throw new Error(`setup ${method} ${url}: ${res.statusCode} ${res.body.slice(0, 500)}`)
}

for (const step of JSON.parse(process.env.BENCH_SETUP ?? '[]')) {
  if (step.seed !== undefined) {
    const { collection, count, record } = step.seed
    for (let start = 0; start < count; start += BULK) {
      const n = Math.min(BULK, count - start)
      await send('POST', `/${collection}`, Array.from({ length: n }, (_, k) => recordOf(record, start + k)))
    }
  } else {
    await send(step.method, step.url, step.body)
  }
}

await listenAndReport(app)
