/**
 * How long `rqs serve` takes to start with a declaration at the documented
 * limits (src/services/collections/limits.ts): MAX_COLLECTIONS collections,
 * each with the most fields a collection may take (string fields: two
 * columns each). Times the built server (dist/) from spawn to its "Server
 * listening" line, then its first /openapi.json.
 *
 *   npm run build && npx tsx scripts/start-at-limits.ts [store] [runs]
 *
 * store: memory (default), sqlite:PATH or a postgres:// URL (emptied first
 * by the caller). Set NODE_OPTIONS=--cpu-prof to profile the start.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAX_COLLECTIONS, MAX_COLUMNS } from '../src/services/collections/limits.js'

const store = process.argv[2] ?? 'memory'
const runs = Number(process.argv[3] ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'rqs-limits-'))
const fields = Object.fromEntries(Array.from({ length: MAX_COLUMNS / 2 }, (_, i) => [`field${i}`, { type: 'string', maxLength: 200 }]))
const declaration = {
  collections: Object.fromEntries(Array.from({ length: MAX_COLLECTIONS }, (_, i) => [`c${i}`, {
    schema: { type: 'object', properties: fields, required: ['field0'] }
  }]))
}
const file = join(dir, 'limits.json')
writeFileSync(file, JSON.stringify(declaration))

async function start (): Promise<{ startMs: number, openapiMs: number, openapiBytes: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, ['dist/bin.js', 'serve', '--port', '0', '--store', store, '--collections', file, '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        const found = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(out) ?? /listening at (http:\/\/[^\s"]+)/i.exec(out)
        if (found !== null) resolve(found[1] as string)
      })
      child.on('exit', (code) => { reject(new Error(`exited ${code}: ${out}`)) })
    })
    const startMs = performance.now() - started
    const asked = performance.now()
    const res = await fetch(`${origin}/openapi.json`)
    const body = await res.arrayBuffer()
    return { startMs, openapiMs: performance.now() - asked, openapiBytes: body.byteLength }
  } finally {
    child.kill('SIGTERM')
  }
}

try {
  for (let i = 0; i < runs; i++) {
    const { startMs, openapiMs, openapiBytes } = await start()
    console.log(`run ${i + 1}: ${MAX_COLLECTIONS} collections × ${MAX_COLUMNS / 2} string fields on ${store.replace(/\/\/[^@]*@/, '//')}: start ${startMs.toFixed(0)} ms, first /openapi.json ${openapiMs.toFixed(0)} ms (${openapiBytes} bytes)`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
