// Two builds' student stores (memory, default declarations) in one process: CPU per create without an
// Idempotency-Key (the students' view's createReporting, as every v1 POST calls it), in bursts alternating
// between the builds, fair on a loaded machine. Prints the medians and the median of each pair's B ÷ A.
//   node bench/store-ab.mjs <root A> <root B> [pairs] [per burst]   (each root a checkout with its dist/ built)
import process from 'node:process'
import { pathToFileURL } from 'node:url'
const roots = process.argv.slice(2, 4)
const pairs = +(process.argv[4] ?? 40), per = +(process.argv[5] ?? 20000)
async function open (root) {
  const { defaultConfig } = await import(pathToFileURL(`${root}/dist/options.js`).href)
  const { openStores } = await import(pathToFileURL(`${root}/dist/stores/index.js`).href)
  const { declarationsOf, SERVICES } = await import(pathToFileURL(`${root}/dist/services/index.js`).href)
  const { studentStore } = await import(pathToFileURL(`${root}/dist/services/students/records.js`).href)
  const { collectionStore } = await import(pathToFileURL(`${root}/dist/services/records/routes.js`).href)
  const config = defaultConfig()
  const stores = await openStores(config.store, undefined, declarationsOf(SERVICES, config))
  return studentStore(collectionStore(stores, 'students'))
}
const stores = [await open(roots[0]), await open(roots[1])]
async function burst (s, n) {
  const c0 = process.cpuUsage()
  for (let i = 0; i < n; i++) { const r = await s.createReporting({ firstName: 'Ada', lastName: 'Lovelace', age: 36 }); if (r.outcome !== 'created') throw new Error('?') }
  const c = process.cpuUsage(c0); return (c.user + c.system) * 1000 / n
}
for (let i = 0; i < 5; i++) for (const s of stores) await burst(s, per)
const a = [], b = [], r = []
for (let p = 0; p < pairs; p++) {
  const x = p % 2 === 0 ? await burst(stores[0], per) : undefined
  const y = await burst(stores[1], per)
  const x2 = x ?? await burst(stores[0], per)
  a.push(x2); b.push(y); r.push(y / x2)
}
const med = (v) => [...v].sort((m, n) => m - n)[v.length >> 1]
process.stdout.write(`${JSON.stringify({ nsA: +med(a).toFixed(0), nsB: +med(b).toFixed(0), medianRatioBA: +med(r).toFixed(3) })}\n`)
