/**
 * The longest the event loop is held while a server at the declaration
 * limits (src/services/collections/limits.ts) answers its first GraphQL
 * request: loading the GraphQL packages and building the schema. A 10 ms
 * interval probe (the largest gap between its ticks, less the 10 ms, and the
 * process's CPU over that gap) and monitorEventLoopDelay, both started after
 * the server listens; /healthz is asked every 20 ms meanwhile and the
 * slowest answer reported. Then the second query, the SDL, and the first
 * query after the collections changed are measured the same way.
 * In-process, from dist/ (npm run build first) or, with
 * --src, from the sources (tsx then transforms each module it loads).
 *
 *   npx tsx scripts/graphql-at-limits.ts [collections] [string fields] [--src]
 *
 * To see what a long block was: node --cpu-prof --import tsx scripts/graphql-at-limits.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as Options from '../src/options.js'
import type * as Server from '../src/server.js'
import type * as Config from '../src/services/collections/config.js'
import type * as Limits from '../src/services/collections/limits.js'
import { limitsDeclaration, measured } from './lib/block-probe.js'

// From dist/ as a server runs (loading modules is most of the first request's work), or the sources with --src.
const root = process.argv.includes('--src') ? '../src' : '../dist'
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const { makeConfig } = await import(`${root}/options.js`) as typeof Options
const { buildServer } = await import(`${root}/server.js`) as typeof Server
const { fromFile } = await import(`${root}/services/collections/config.js`) as typeof Config
const { MAX_COLLECTIONS, MAX_COLUMNS } = await import(`${root}/services/collections/limits.js`) as typeof Limits

const count = Number(args[0] ?? MAX_COLLECTIONS)
const width = Number(args[1] ?? MAX_COLUMNS / 2)
const dir = mkdtempSync(join(tmpdir(), 'rqs-graphql-limits-'))
const declaration = limitsDeclaration(count, width)
const file = join(dir, 'limits.json')
writeFileSync(file, JSON.stringify(declaration))

const query = ['-H', 'content-type: application/json', '--data', JSON.stringify({ query: '{ c0(first: 1) { nodes { id field0 } } }' })]
const app = await buildServer(makeConfig({ logLevel: 'silent', port: 0, collections: fromFile(file, '--collections'), connections: { handlerTimeoutMs: 0 } }))
try {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP port')
  const origin = `http://127.0.0.1:${address.port}`
  console.log(`${count} collections × ${width} string fields`)
  await measured(origin, 'first GraphQL query', '/graphql', query)
  await measured(origin, 'second GraphQL query', '/graphql', query)
  await measured(origin, 'the SDL', '/graphql/schema.graphql')
} finally {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
}
