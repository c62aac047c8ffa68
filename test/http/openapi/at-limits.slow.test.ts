import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { MAX_COLLECTIONS, MAX_COLUMNS } from '../../../src/services/collections/limits.js'
import { watchWhile } from '../../helpers/event-loop-watch.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from '../../services/collections/fixture.js'

/**
 * The first /openapi.json of a server at the declaration limits
 * (MAX_COLLECTIONS collections of MAX_COLUMNS / 2 string fields: ≈ 45 MB of
 * document) is made in slices, and others are answered meanwhile. How long
 * a slice holds the event loop is measured by scripts/openapi-at-limits.ts;
 * here, with bounds a loaded machine keeps: /healthz answers again and
 * again while the document is made, a 10 ms timer keeps ticking, and no gap
 * between its ticks comes near the seconds one piece of the making held it
 * before (a deep copy of the document, a slice of list routes, its text).
 */
const files = declarationFiles()
const fields = Object.fromEntries(Array.from({ length: MAX_COLUMNS / 2 }, (_, i) => [`field${i}`, { type: 'string', maxLength: 200 }]))
const DECLARATION = { collections: Object.fromEntries(Array.from({ length: MAX_COLLECTIONS }, (_, i) => [`c${i}`, { schema: { type: 'object', properties: fields, required: ['field0'] } }])) }

describe('/openapi.json at the declaration limits', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ collections: fromFile(files.write('limits.json', DECLARATION), '--collections'), connections: { handlerTimeoutMs: 0 } })
  }, 300_000)
  afterAll(async () => { await server?.close() })

  it('is made in slices: /healthz answers meanwhile, the event loop is never held for long', async () => {
    // Done once the answer's headers came (the document is made then): reading 45 MB of it here would hold this process's loop.
    const { result: answer, health, ticks, longestGapMs, mostMainCpuMs: mostCpuMs } = await watchWhile(server.origin, async () => await fetch(`${server.origin}/openapi.json`))
    expect(answer.status).toBe(200)
    const text = await answer.text()
    const paths = Object.keys((JSON.parse(text) as { paths: Record<string, unknown> }).paths)
    for (let i = 0; i < MAX_COLLECTIONS; i++) expect(paths).toContain(`/c${i}`)
    // Making it takes seconds even on an idle machine: many answers and ticks fit in between.
    expect(health).toBeGreaterThanOrEqual(5)
    expect(ticks).toBeGreaterThanOrEqual(50)
    // ≤ 50 ms of CPU a slice on an idle machine; the bound is for a loaded one (the deep copy alone held it 2–3 s there).
    expect(longestGapMs).toBeLessThan(1500)
    // What the main thread ran between two ticks, which a loaded machine does not stretch: ≈ 35 ms a slice when
    // it is idle, ≤ 70 ms at a load of 20 on two cores (a 47 MB Buffer.concat, the YAML library loaded in one go: 80–150 ms).
    expect(mostCpuMs).toBeLessThan(120)
    const second = await request(`${server.origin}/openapi.json`)
    expect(second.text).toBe(text)
  }, 300_000)
})
