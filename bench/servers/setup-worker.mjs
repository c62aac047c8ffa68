// @ts-check
// Sends a declared server's BENCH_SETUP over HTTP from a worker thread (rqs-declared.mjs says why).
// Each step is one request; a `seed` step is bulk creates of 10 000 records from its template.
import { workerData } from 'node:worker_threads'

const BULK = 10_000
const { fetch } = globalThis

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

const { origin, steps } = /** @type {{ origin: string, steps: any[] }} */ (workerData)

async function send (method, url, payload) {
  const res = await fetch(`${origin}${url}`, {
    method,
    headers: payload === undefined ? {} : { 'content-type': 'application/json' },
    body: payload === undefined ? undefined : JSON.stringify(payload)
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`setup ${method} ${url}: ${res.status} ${text.slice(0, 500)}`)
}

for (const step of steps) {
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
