import { describe, expect, it } from 'vitest'
import { canonicalInstant, JSON_TYPES, KIND_NAMES, KINDS, kindOfSchema, type Kind } from '../../src/domain/index.js'

/** The registry of field kinds (issue 28, item 1): every kind answers every layer's question. */
describe('KINDS', () => {
  it('holds a complete definition for every kind', () => {
    expect(KIND_NAMES).toEqual(['string', 'integer', 'number', 'boolean', 'date-time', 'int64', 'list', 'object', 'json'])
    // The composite kinds (issue 29, items 7 and 8) hold JSON: no order, JSON columns, the JSON scalar.
    for (const kind of KIND_NAMES.filter((k) => KINDS[k].composite !== undefined)) {
      const def = KINDS[kind]
      expect(def.order, kind).toBe('none')
      expect(def.storage, kind).toEqual({ memory: 'value', sqlite: 'TEXT', postgres: kind === 'json' ? 'json' : 'jsonb' })
      expect(def.graphql({}).name, kind).toBe('JSON')
      expect(def.declaration, kind).toBeUndefined()
    }
    for (const kind of KIND_NAMES.filter((k) => KINDS[k].composite === undefined)) {
      const def = KINDS[kind]
      expect(['text', 'number', 'boolean'], kind).toContain(def.order)
      expect(def.operators[0], kind).toBe('eq')
      expect(def.operators.includes('contains'), kind).toBe(def.folded)
      expect(['text', 'number', 'boolean', 'value'], kind).toContain(def.storage.memory)
      expect(def.storage.sqlite, kind).toMatch(/^(TEXT|INTEGER|REAL)$/)
      expect(def.storage.postgres, kind).toMatch(/^(text|bigint|double precision|boolean)$/)
      expect(JSON_TYPES, kind).toContain(def.represented.type)
      for (const f of [def.query.schema, def.query.describe, def.query.fromQuery, def.query.fromGraphql, def.query.fromCursor, def.csv, def.graphql, def.sample]) expect(typeof f, kind).toBe('function')
      expect(typeof def.graphql({}).name, kind).toBe('string')
      expect(['text', 'integer', 'decimal', 'checkbox', 'datetime'], kind).toContain(def.app.input)
      for (const was of def.convertsFrom ?? []) expect(KIND_NAMES, kind).toContain(was)
      if (def.convertsFrom !== undefined) expect(def.canonical, kind).toBeDefined()
    }
  })

  it('selects a kind by a declaration\'s type and format', () => {
    const cases: Array<[Parameters<typeof kindOfSchema>, Kind]> = [
      [['string', undefined], 'string'], [['string', 'email'], 'string'], [['string', 'date'], 'string'], [['string', 'date-time'], 'date-time'],
      [['integer', undefined], 'integer'], [['number', undefined], 'number'], [['boolean', undefined], 'boolean']
    ]
    for (const [args, kind] of cases) expect(kindOfSchema(...args), args.join(' ')).toBe(kind)
    expect(JSON_TYPES).toEqual(['string', 'integer', 'number', 'boolean'])
  })
})

describe('date-time values', () => {
  it('are kept as UTC text of fixed width, to the millisecond', () => {
    expect(canonicalInstant('2024-05-01T09:00:00+02:00')).toBe('2024-05-01T07:00:00.000Z')
    expect(canonicalInstant('2024-05-01t09:00:00.1z')).toBe('2024-05-01T09:00:00.100Z')
    expect(canonicalInstant('2024-05-01T09:00:00.123999Z')).toBe('2024-05-01T09:00:00.123Z')
    expect(canonicalInstant('2024-12-31T23:30:00-01:00')).toBe('2025-01-01T00:30:00.000Z')
    expect(canonicalInstant('0050-01-01T00:00:00Z')).toBe('0050-01-01T00:00:00.000Z')
    expect(canonicalInstant('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z')
  })

  it('refuse what is no RFC 3339 date-time or falls outside 0000–9999 in UTC', () => {
    for (const text of ['2024-05-01', '2024-05-01T09:00:00', '2024-02-30T00:00:00Z', '2024-05-01T24:00:00Z', '2024-05-01T09:60:00Z', '2024-05-01T09:00:00+24:00',
      '0000-01-01T00:00:00+00:01', '9999-12-31T23:59:59-00:01', '2024-05-01 09:00:00Z', ' 2024-05-01T09:00:00Z']) {
      expect(canonicalInstant(text), text).toBeUndefined()
    }
  })

  it('order as text exactly as the instants do', () => {
    const texts = ['2024-05-01T09:00:00+02:00', '2024-05-01T06:59:59.999Z', '2024-05-01T07:00:00.001Z', '1999-12-31T23:00:00-01:00', '2000-01-01T00:00:00.000Z']
    const canonical = texts.map((t) => canonicalInstant(t) as string)
    const byText = [...canonical].sort()
    const byInstant = [...canonical].sort((a, b) => Date.parse(a) - Date.parse(b))
    expect(byText).toEqual(byInstant)
  })
})
