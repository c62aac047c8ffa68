import { Ajv } from 'ajv'
const orig = Ajv.prototype.compile
const seen = new Map<string, { n: number, ms: number }>()
Ajv.prototype.compile = function (schema: any, ...rest: any[]) {
  const t = performance.now(); const r = orig.call(this, schema, ...rest); const ms = performance.now() - t
  const k = JSON.stringify(schema).slice(0, 80) + ' len=' + JSON.stringify(schema).length
  const e = seen.get(k) ?? { n: 0, ms: 0 }; e.n++; e.ms += ms; seen.set(k, e); return r
}
process.on('exit', () => { for (const [k, v] of [...seen].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) console.log(v.n, Math.round(v.ms), k) })
await import('./.measure.ts')
