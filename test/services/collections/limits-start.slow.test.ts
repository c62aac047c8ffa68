import { afterAll, describe, expect, it } from 'vitest'
import { fromFile } from '../../../src/services/collections/config.js'
import { MAX_COLLECTIONS, MAX_COLUMNS } from '../../../src/services/collections/limits.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { declarationFiles } from './fixture.js'

/**
 * A server starts with a declaration at the documented limits (issue 36,
 * item 6): MAX_COLLECTIONS collections of MAX_COLUMNS / 2 string fields each.
 * What it takes is measured by scripts/start-at-limits.ts, not here; here it
 * starts, and its routes check what they must (their validators are compiled
 * when first asked).
 */
const files = declarationFiles()
const fields = Object.fromEntries(Array.from({ length: MAX_COLUMNS / 2 }, (_, i) => [`field${i}`, { type: 'string', maxLength: 200 }]))
const declaration = {
  collections: Object.fromEntries(Array.from({ length: MAX_COLLECTIONS }, (_, i) => [`c${i}`, { schema: { type: 'object', properties: fields, required: ['field0'] } }]))
}

let server: RunningServer | undefined
afterAll(async () => { await server?.close() })

describe('a declaration at the limits', () => {
  it(`starts with ${MAX_COLLECTIONS} collections of ${MAX_COLUMNS / 2} string fields, and checks bodies and queries`, { timeout: 300_000 }, async () => {
    server = await startServer({ collections: fromFile(files.write('limits.json', declaration), '--collections') })
    const last = `c${MAX_COLLECTIONS - 1}`
    const created = await request(`${server.origin}/${last}`, { method: 'POST', json: { field0: 'a', field47: 'b' } })
    expect(created.status, created.text).toBe(201)
    const refused = await request(`${server.origin}/${last}`, { method: 'POST', json: { field1: 'no field0' } })
    expect(refused.status).toBe(400)
    expect(refused.body.errors[0].error).toBe('FIELD_REQUIRED')
    const listed = await request(`${server.origin}/${last}?field47=b&limit=5`)
    expect(listed.status, listed.text).toBe(200)
    expect((await request(`${server.origin}/${last}?limit=0`)).status).toBe(400)
  })
})
