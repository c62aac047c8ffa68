/**
 * The longest the event loop is held while a server at the declaration
 * limits (src/services/collections/limits.ts) makes its first /openapi.json
 * (then Swagger UI's copies, JSON and YAML) and its GraphQL schema: a 10 ms interval probe (the largest gap between
 * its ticks, less the 10 ms) and monitorEventLoopDelay, both started after
 * the server listens, and the most CPU the main thread used between two
 * ticks (what a shared machine does not stretch); /healthz is asked every
 * 20 ms meanwhile and the slowest answer reported. In-process, from the sources (tsx).
 *
 *   npx tsx scripts/openapi-at-limits.ts [collections] [string fields] [file to keep the document in]
 *
 * To see what a long block was: node --cpu-prof --import tsx scripts/openapi-at-limits.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeConfig } from '../src/options.js'
import { buildServer } from '../src/server.js'
import { fromFile } from '../src/services/collections/config.js'
import { MAX_COLLECTIONS, MAX_COLUMNS } from '../src/services/collections/limits.js'
import { limitsDeclaration, measured } from './lib/block-probe.js'

const count = Number(process.argv[2] ?? MAX_COLLECTIONS)
const width = Number(process.argv[3] ?? MAX_COLUMNS / 2)
const keep = process.argv[4] ?? '/dev/null'
const dir = mkdtempSync(join(tmpdir(), 'rqs-openapi-limits-'))
const declaration = limitsDeclaration(count, width)
const file = join(dir, 'limits.json')
writeFileSync(file, JSON.stringify(declaration))

const app = await buildServer(makeConfig({ logLevel: 'silent', port: 0, collections: fromFile(file, '--collections'), connections: { handlerTimeoutMs: 0 } }))
try {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP port')
  const origin = `http://127.0.0.1:${address.port}`
  console.log(`${count} collections × ${width} string fields`)
  await measured(origin, 'first /openapi.json', '/openapi.json', [], keep)
  await measured(origin, 'second /openapi.json', '/openapi.json')
  await measured(origin, 'third /openapi.json, gzip', '/openapi.json', ['--compressed'])
  await measured(origin, 'Swagger UI\'s /docs/api/json', '/docs/api/json')
  await measured(origin, 'Swagger UI\'s first /docs/api/yaml', '/docs/api/yaml')
  await measured(origin, 'first GraphQL query', '/graphql', ['-H', 'content-type: application/json', '--data', JSON.stringify({ query: '{ __typename }' })])
} finally {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
}
