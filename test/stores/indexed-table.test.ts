import { describe, expect, it } from 'vitest'
import { IndexedTable, type TableShape } from '../../src/stores/memory/indexed-table.js'
import { PAUSE } from '../../src/stores/memory/scan.js'
import { STUDENT_FIELDS, type Student } from '../helpers/built-ins.js'

const STUDENTS: TableShape = { kinds: STUDENT_FIELDS, fields: ['firstName', 'lastName', 'age'], firstId: 0 }

const student = (id: number, lastName: string, age = 30): Student => ({ id, firstName: 'A', lastName, age })
const walk = (table: IndexedTable<number, Student>, field: string): number[] => [...table.walk(field, undefined, 0, false)].flatMap((s) => s === PAUSE ? [] : [s.id])

describe('the memory store\'s indexes (issue 12: built on first use, then kept up to date)', () => {
  it('keeps the id index from the start, and builds another only when a query asks for it', () => {
    const table = new IndexedTable<number, Student>(STUDENTS)
    for (let id = 0; id < 5; id++) table.set(id, student(id, `L${4 - id}`))
    expect(table.indexedFields).toEqual(['id'])
    expect(walk(table, 'lastName')).toEqual([4, 3, 2, 1, 0])
    expect(table.indexedFields).toEqual(['id', 'lastName'])
  })

  it('an index built late holds every write made before it and follows every write after it', () => {
    const table = new IndexedTable<number, Student>(STUDENTS)
    table.set(0, student(0, 'Cole'))
    table.set(1, student(1, 'Abel'))
    table.set(2, student(2, 'Bell'))
    table.set(1, student(1, 'Dunn')) // replaced before the index exists
    table.delete(2) // deleted before the index exists
    expect(walk(table, 'lastName')).toEqual([0, 1])
    table.set(3, student(3, 'Aa'))
    table.set(0, student(0, 'Zz')) // replaced after
    table.delete(1) // deleted after
    table.set(1, student(1, 'Mm')) // id reused after a delete
    expect(walk(table, 'lastName')).toEqual([3, 1, 0])
    expect(walk(table, 'age')).toEqual([0, 1, 3])
    expect(walk(table, 'id')).toEqual([0, 1, 3])
  })

  it('refuses a field it has no index for', () => {
    const table = new IndexedTable<number, Student>(STUDENTS)
    expect(() => walk(table, '__proto__')).toThrow(RangeError)
    expect(() => walk(table, 'nope')).toThrow(RangeError)
  })

  it('keeps ids as slots while they are dense, and moves them to a Map once most slots would be holes', () => {
    const dense = new IndexedTable<number, Student>(STUDENTS)
    for (let id = 0; id < 100_000; id++) dense.set(id, student(id, 'L'))
    for (let id = 0; id < 100_000; id += 2) dense.delete(id) // holes left by deletes stay slots
    dense.set(100_000, student(100_000, 'L'))
    expect(dense.denseIds).toBe(true)

    const spaced = new IndexedTable<number, Student>(STUDENTS)
    for (let i = 0; i < 20_000; i++) spaced.set(i * 10, student(i * 10, `L${i % 7}`))
    expect(spaced.denseIds).toBe(false)
    expect(spaced.size).toBe(20_000)
    expect(spaced.get(199_990)).toEqual(student(199_990, `L${19_999 % 7}`))
    expect(spaced.get(199_991)).toBeUndefined()
    expect(walk(spaced, 'id')).toEqual(Array.from({ length: 20_000 }, (_, i) => i * 10))
  })
})
