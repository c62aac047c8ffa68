// Two builds of rqs in one Node process, creates alternating between them: a before/after of the
// POST path's own work (routing, hooks, parsing, validation, handler, store; no sockets) that stays
// fair on a loaded machine, since both pay the same neighbours at the same moments.
//   node bench/inject-ab.mjs <root A> <root B> [student|notes|get] [pairs] [per burst]
// `get` reads GET /students/{id} of a student created first (the read-by-id path, no store write).
// Each root is a checkout with its own dist/ (build it first). `notes` needs RQS_COLLECTIONS (and
// BENCH_SETUP's request steps, e.g. a webhook) as bench/lib/declared.ts sets them. Prints the
// medians per build and the median of each pair's B ÷ A.
import process from 'node:process'
import { pathToFileURL } from 'node:url'
const [ra, rb, kind = 'student', pairs = '60', per = '300'] = process.argv.slice(2)
const url = kind === 'notes' ? '/notes' : '/students'
const payload = kind !== 'notes' ? '{"firstName":"Ada","lastName":"Lovelace","age":36}' : '{"title":"A note","body":"Nothing in it refers to anything."}'
const headers = { 'content-type': 'application/json' }
async function open (root) {
  const { buildServer } = await import(pathToFileURL(`${root}/dist/server.js`).href)
  const { resolveConfig } = await import(pathToFileURL(`${root}/dist/options.js`).href)
  const app = await buildServer({ ...resolveConfig({}, process.env), port: 0 })
  await app.ready()
  for (const step of JSON.parse(process.env.BENCH_SETUP ?? '[]')) if (!step.seed) await app.inject({ method: step.method, url: step.url, payload: step.body })
  if (kind === 'get') app.readUrl = `/students/${JSON.parse((await app.inject({ method: 'POST', url, payload, headers })).body).body.id}`
  return app
}
const apps = [await open(ra), await open(rb)]
async function burst (app, n) {
  const c0 = process.cpuUsage()
  if (kind === 'get') {
    for (let i = 0; i < n; i++) { const r = await app.inject({ method: 'GET', url: app.readUrl }); if (r.statusCode !== 200) throw new Error(r.body) }
  } else {
    for (let i = 0; i < n; i++) { const r = await app.inject({ method: 'POST', url, payload, headers }); if (r.statusCode !== 201) throw new Error(r.body) }
  }
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / n
}
for (let i = 0; i < 10; i++) for (const app of apps) await burst(app, 300)
const a = [], b = [], ratios = []
for (let p = 0; p < +pairs; p++) {
  // Alternate which goes first.
  const [x, y] = p % 2 === 0 ? [await burst(apps[0], +per), await burst(apps[1], +per)] : (([y2, x2]) => [x2, y2])([await burst(apps[1], +per), await burst(apps[0], +per)])
  a.push(x); b.push(y); ratios.push(y / x)
}
const med = (v) => [...v].sort((m, n) => m - n)[Math.floor(v.length / 2)]
const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length
process.stdout.write(`${JSON.stringify({ kind, A: ra, B: rb, medA: +med(a).toFixed(2), medB: +med(b).toFixed(2), meanA: +mean(a).toFixed(2), meanB: +mean(b).toFixed(2), medianRatioBA: +med(ratios).toFixed(4) })}\n`)
for (const app of apps) await app.close()
