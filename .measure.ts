import { makeConfig } from './src/options.js'
import { buildServer } from './src/server.js'
import { checkCollections } from './src/services/collections/declare.js'
const [collections, fields, store] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]]
const decl: Record<string, unknown> = {}
for (let c = 0; c < collections; c++) {
  const properties: Record<string, unknown> = {}
  for (let f = 0; f < fields; f++) properties[`field${f}`] = f % 2 === 0 ? { type: 'string', maxLength: 100 } : { type: 'integer' }
  decl[`c${c}`] = { schema: { type: 'object', properties, required: ['field0'] } }
}
let t = performance.now()
const declared = checkCollections(decl, 'x')
const tCheck = performance.now() - t
t = performance.now()
const app = await buildServer(makeConfig({ logLevel: 'silent', port: 0, collections: { source: 'x', declared }, ...(store ? { store } : {}) } as never))
const tBuild = performance.now() - t
t = performance.now()
await app.ready()
const tReady = performance.now() - t
t = performance.now()
const doc = app.swagger()
const tDoc = performance.now() - t
t = performance.now()
const text = JSON.stringify(doc)
const tJson = performance.now() - t
console.log(JSON.stringify({ collections, fields, tCheck: Math.round(tCheck), tBuild: Math.round(tBuild), tReady: Math.round(tReady), tDoc: Math.round(tDoc), tJson: Math.round(tJson), mb: (text.length / 1e6).toFixed(2) }))
await app.close()
