import { describe, expect, it } from 'vitest'
import { declaredCollections } from '../../../src/services/app/index.js'
import type { AppCollection } from '../../../src/services/app/page-config.js'
import type { CollectionSchema } from '../../../src/services/collections/declare.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { servedCollection } from '../../../src/services/collections/records.js'
import { formValues, specFromDeclaration, toRecord } from '../../../web/app/resources.js'
import { filterParams } from '../../../web/app/view-state.js'
import { declarationFiles } from '../../services/collections/fixture.js'
import { PLACES } from '../../services/collections/lists-objects.suite.js'

/** The web app's minimal inputs for lists (a tag input), nested objects and free JSON (their JSON text): issue 29, items 7 and 8. */
describe('the web app and composite fields', () => {
  const files = declarationFiles()
  const declared = fromFile(files.write('places.json', PLACES), '--collections').declared[0] as CollectionSchema
  const places = specFromDeclaration(declaredCollections([servedCollection(declared)], [{ rel: 'places', href: '/places', title: 'Places' }])[0] as AppCollection)
  const kinds = Object.fromEntries(places.fields.map((f) => [f.key, f.kind]))

  it('reads lists, objects and free JSON from the declaration', () => {
    expect(kinds).toEqual({ name: 'string', tags: 'list', scores: 'list', 'address.city': 'string', 'address.zip': 'integer', 'address.geo.lat': 'number', 'address.geo.open': 'boolean', extra: 'json' })
    expect(places.fields.find((f) => f.key === 'address.geo.lat')?.label).toEqual({ literal: 'Address › Geo › Lat' })
    // Sort keys are the server's: a nested field whose every step is required.
    expect(places.fields.filter((f) => f.sortable !== false).map((f) => f.key)).toEqual(['name', 'address.city', 'address.zip'])
  })

  it('sends a tag input as a list, an object\'s fieldset as the object, free JSON parsed', () => {
    const body = places.createBody({ name: 'Fjord', tags: 'water, cold\nold', scores: '', 'address.city': 'Oslo', 'address.zip': '150', 'address.geo.lat': '', 'address.geo.open': '', extra: '{"a": [1]}' })
    expect(body).toEqual({ name: 'Fjord', tags: ['water', 'cold', 'old'], address: { city: 'Oslo', zip: 150 }, extra: { a: [1] } })
  })

  it('shows a list as its values and an object\'s fields by path, and filters a list by has', () => {
    const record = toRecord({ id: 1, name: 'Fjord', tags: ['water', 'cold'], address: { city: 'Oslo', zip: 150, geo: { lat: 59.9 } }, extra: { a: 1 }, other: [1] }, places)
    expect(record).toEqual({ id: '1', name: 'Fjord', tags: 'water, cold', 'address.city': 'Oslo', 'address.zip': 150, 'address.geo.lat': 59.9, extra: '{"a":1}' })
    expect(formValues(places, record as NonNullable<typeof record>).tags).toBe('water, cold')
    const param = (key: string): string[] => { const f = places.fields.find((g) => g.key === key); return f === undefined ? [] : filterParams(f) }
    expect(param('tags')).toEqual(['tags[has]'])
    expect(param('address.city')).toEqual(['address.city'])
    expect(param('address.zip')).toEqual(['address.zip[gte]', 'address.zip[lte]'])
  })
})
