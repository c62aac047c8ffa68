import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../../src/options.js'
import { checkCollections } from '../../../src/services/collections/declare.js'
import { declarationFiles } from './fixture.js'
import { runExport } from '../../../src/commands/export.js'
import { runImport } from '../../../src/commands/import.js'
import { EXIT_OK } from '../../../src/commands/common.js'
import { run } from '../../commands/helpers.js'
import { listsObjectsSuite, PLACES, shapeChangesAtStart } from './lists-objects.suite.js'

const files = declarationFiles()
describe('memory store', () => { listsObjectsSuite(() => undefined) })
describe('sqlite store', () => {
  listsObjectsSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, 'places.db')}` }, {}).store)
  it('compares lists\' and objects\' shapes at start', async () => { await shapeChangesAtStart(resolveConfig({ store: `sqlite:${join(files.dir, 'shapes.db')}` }, {}).store) })
})

describe('declarations of lists, objects and free JSON', () => {
  const declared = (fields: Record<string, unknown>): unknown => ({ things: { schema: { type: 'object', properties: { name: { type: 'string' }, ...fields } } } })
  const refusal = (fields: Record<string, unknown>): string => {
    try { checkCollections(declared(fields), 'things.json') } catch (err) { return (err as Error).message }
    return 'accepted'
  }

  it('accepts the three kinds and keeps their shape', () => {
    const [places] = checkCollections(PLACES.collections, 'places.json')
    expect(places?.declaration.fields.tags).toEqual({ type: 'list', required: false, items: 'string' })
    expect(places?.declaration.fields.address?.fields?.geo).toEqual({ type: 'object', required: false, fields: { lat: { type: 'number', required: true }, open: { type: 'boolean', required: false } } })
    expect(places?.declaration.fields.extra).toEqual({ type: 'json', required: false })
  })

  it('refuses deeper than three levels, lists of objects and keywords it does not apply, with path and hint', () => {
    const level = (inner: unknown): unknown => ({ type: 'object', properties: { x: inner } })
    expect(refusal({ a: level(level(level(level({ type: 'string' })))) })).toContain('things.schema.properties.a.properties.x.properties.x.properties.x: objects nest at most 3 levels deep')
    expect(refusal({ a: level(level(level({ type: 'string' }))) })).toBe('accepted')
    expect(refusal({ a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string' } } } } })).toContain('things.schema.properties.a.items: must be a scalar')
    expect(refusal({ a: { type: 'array', items: { type: 'array', items: { type: 'string' } } } })).toContain('lists of objects or of lists are not supported')
    expect(refusal({ a: { type: 'array' } })).toContain('things.schema.properties.a.items: is required')
    expect(refusal({ a: { type: 'array', items: { type: 'string' }, contains: { const: 'x' } } })).toContain('things.schema.properties.a.contains: unknown keyword')
    expect(refusal({ a: { type: 'array', items: { type: 'string', maxItems: 3 } } })).toContain('things.schema.properties.a.items.maxItems')
    expect(refusal({ a: { type: 'array', items: { type: 'string' }, maxItems: 5000 } })).toContain('maxItems: may be at most 1000')
    expect(refusal({ a: { type: 'object' } })).toContain('"additionalProperties": true')
    expect(refusal({ a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: true } })).toContain('things.schema.properties.a.additionalProperties')
    expect(refusal({ a: { type: 'object', properties: { b: { type: 'string' } }, required: ['c'] } })).toContain('things.schema.properties.a.required.0: "c" is not a declared field')
    expect(refusal({ a: { type: 'object', properties: { b: { type: 'sting' } } } })).toContain('things.schema.properties.a.properties.b.type')
    expect(refusal({ a: { type: 'string', items: { type: 'string' } } })).toContain('declare "type": "array"')
  })
})

describe('rqs import and export of lists and objects', () => {
  it('round-trips CSV (JSON cells, dotted columns) and NDJSON, and refuses a cell that is no list', async () => {
    const declarations = join(import.meta.dirname, '../../../examples/places.json')
    const seed = join(import.meta.dirname, '../../../examples/places.ndjson')
    const first = `sqlite:${join(files.dir, 'first.db')}`
    expect((await run(runImport, ['--store', first, '--service', 'places', '--collections', declarations, seed])).code).toBe(EXIT_OK)
    const ndjson = await run(runExport, ['--store', first, '--service', 'places', '--collections', declarations])
    expect(ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual(readFileSync(seed, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown))
    const csv = await run(runExport, ['--store', first, '--service', 'places', '--collections', declarations, '--format', 'csv'])
    expect(csv.stdout.split('\r\n')[0]).toBe('id,name,tags,ratings,address.city,address.zip,address.geo.lat,address.geo.lon,extra')
    const second = `sqlite:${join(files.dir, 'second.db')}`
    expect((await run(runImport, ['--store', second, '--service', 'places', '--collections', declarations, '--format', 'csv', files.write('places.csv', csv.stdout)])).code).toBe(EXIT_OK)
    expect((await run(runExport, ['--store', second, '--service', 'places', '--collections', declarations])).stdout).toBe(ndjson.stdout)
    const bad = files.write('bad.csv', 'id,name,tags,address.city\r\n9,Bad,water,Oslo\r\n')
    const refused = await run(runImport, ['--store', second, '--service', 'places', '--collections', declarations, '--format', 'csv', bad])
    expect(refused.code).not.toBe(EXIT_OK)
    expect(refused.stderr).toContain('tags must be JSON')
  })
})
