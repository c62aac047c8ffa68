import { makeConfig, resolveConfig } from '/work/wt-follow/src/options.js'
import { buildServer } from '/work/wt-follow/src/server.js'
const store = resolveConfig({ store: 'postgres://postgres@127.0.0.1:5432/rqs_follow_dbg' }, {}).store
const mk = async () => {
  const app = await buildServer(makeConfig({ logLevel: 'warn', port: 0, collections: { declared: [], api: true }, store } as any))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const a = app.server.address() as any
  return { app, url: `http://127.0.0.1:${a.port}` }
}
const A = await mk(); const B = await mk()
const j = async (u: string, m: string, b?: unknown, h: Record<string, string> = {}) => { const r = await fetch(u, { method: m, headers: { 'content-type': 'application/json', ...h }, body: b === undefined ? undefined : JSON.stringify(b) }); return [r.status, await r.text()] }
console.log(await j(`${A.url}/collections`, 'POST', { name: 'books', schema: { type: 'object', properties: { title: { type: 'string' }, year: { type: 'integer' } }, required: ['title'] }, ids: 'sequence' }))
for (let i = 0; i < 300; i++) { const s = (await fetch(`${B.url}/books`)).status; if (s === 200) break; await new Promise(r => setTimeout(r, 10)) }
console.log(await j(`${B.url}/books`, 'POST', { title: 'Dune', year: 1965 }))
console.log(await j(`${A.url}/books`, 'POST', { title: 'Emma', year: 1965 }))
console.log(await j(`${A.url}/books`, 'GET'))
await B.app.close(); await A.app.close()
