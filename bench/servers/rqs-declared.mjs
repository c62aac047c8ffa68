// @ts-check
// rqs serving declared collections, as `rqs serve --collections <file>` runs it: the compiled dist/ under
// plain node, every option read from its RQS_* environment variable exactly as the CLI reads them
// (RQS_COLLECTIONS, RQS_STORE, RQS_WEBHOOKS, …; bench/lib/declared.ts sets them). Once listening it
// runs BENCH_SETUP, a JSON list of requests (seeding by bulk creates, registering webhooks), over HTTP
// from a worker thread (setup-worker.mjs): the server's isolate sees only requests off a socket, as
// the measured ones are. (Through Fastify's inject, light-my-request's objects went through node's
// stream and tick code first, and whether V8 then optimised `process.nextTick` for them decided, at
// random, a few per cent of every later request: bench/README.md, "One process is one draw".) A step
// `{"seed": {collection, count, record}}` creates `count` records in bulk creates of 10 000, each made
// from the `record` template (bench/lib/declared.ts says how a template reads). Then prints
// `MEMORY {...}` after a GC (with --expose-gc) and `LISTENING <port>`.
import process from 'node:process'
import { URL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { listenAndReport } from './listen.mjs'
import { buildServer } from '../../dist/server.js'
import { resolveConfig } from '../../dist/options.js'

const config = { ...resolveConfig({}, process.env), port: 0 }
const app = await buildServer(config)
const steps = JSON.parse(process.env.BENCH_SETUP ?? '[]')

/** @param {number} port */
async function setUp (port) {
  if (steps.length === 0) return
  const worker = new Worker(new URL('./setup-worker.mjs', import.meta.url), { workerData: { origin: `http://127.0.0.1:${port}`, steps } })
  await new Promise((resolve, reject) => {
    worker.once('error', reject)
    worker.once('exit', (code) => { if (code === 0) resolve(undefined); else reject(new Error(`setup worker exited with ${code}`)) })
  })
}

await listenAndReport(app, async () => {}, setUp)
