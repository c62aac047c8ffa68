import { describe, expect, it } from 'vitest'
import { FilterCache, readFilterParam } from '../../src/records/index.js'
import { STUDENT_QUERY } from '../../src/services/students/query.js'

/** The `filter=` cache of one collection's routes: a text is read once, what it keeps is frozen, and it is bounded. */
describe('FilterCache', () => {
  it('reads a text once: the same text gives the same expression, equal to a fresh read', () => {
    const cache = new FilterCache(STUDENT_QUERY)
    const first = cache.read('age = 36 || age = 41')
    expect(cache.read('age = 36 || age = 41')).toBe(first)
    expect(first).toEqual(readFilterParam(STUDENT_QUERY, 'age = 36 || age = 41'))
    expect(cache.size).toBe(1)
  })

  it('keeps a refusal as a fresh read words it', () => {
    const cache = new FilterCache(STUDENT_QUERY)
    const refused = cache.read('age >= ')
    expect(refused).toEqual(readFilterParam(STUDENT_QUERY, 'age >= '))
    expect('refused' in refused && refused.refused).toMatch(/^filter: /)
    expect(cache.read('age >= ')).toBe(refused)
  })

  it('freezes what it keeps: no request can change the expression another one reads', () => {
    const read = new FilterCache(STUDENT_QUERY).read("(age = 36 || age = 41) && !(lastName ~ 'x')")
    if (!('expr' in read)) throw new Error(read.refused)
    const expr = read.expr as { op: string, items: Array<{ op: string, items?: unknown[] }> }
    expect(Object.isFrozen(read)).toBe(true)
    expect(Object.isFrozen(expr)).toBe(true)
    expect(Object.isFrozen(expr.items)).toBe(true)
    expect(expr.items.every((item) => Object.isFrozen(item))).toBe(true)
    expect(() => { (expr.items as unknown[]).push({ op: 'unset', field: 'age' }) }).toThrow(TypeError)
  })

  it('keeps at most its size, dropping the least recently used text first', () => {
    const cache = new FilterCache(STUDENT_QUERY, 2)
    const a = cache.read('age = 1')
    const b = cache.read('age = 2')
    expect(cache.read('age = 1')).toBe(a) // a is now the most recently used
    cache.read('age = 3') // b goes
    expect(cache.size).toBe(2)
    expect(cache.read('age = 1')).toBe(a)
    const again = cache.read('age = 2')
    expect(again).not.toBe(b)
    expect(again).toEqual(b)
  })

  it('keeps a text read twice in a row as the most recently used', () => {
    const cache = new FilterCache(STUDENT_QUERY, 2)
    const a = cache.read('age = 1')
    const b = cache.read('age = 2')
    expect(cache.read('age = 2')).toBe(b)
    expect(cache.read('age = 1')).toBe(a)
    expect(cache.read('age = 1')).toBe(a)
    cache.read('age = 3') // b goes: a was used after it
    expect(cache.read('age = 1')).toBe(a)
    expect(cache.read('age = 2')).not.toBe(b)
  })
})
