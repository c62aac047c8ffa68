import { describe, expect, it } from 'vitest'
import { StudentEtags, studentEtag } from '../../../src/services/students/etag.js'

/** Issue 20: a v2 student's ETag is hashed once per stored record object, not on every read. */
describe('student ETags', () => {
  it('are found again by record identity; another object with other fields has another ETag', () => {
    const etags = new StudentEtags()
    const ada = { id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }
    const first = etags.of(ada)
    expect(first).toBe(studentEtag(ada))
    // Stores never change a record in place; changing this one shows the ETag comes from the cache.
    ada.age = 37
    expect(etags.of(ada)).toBe(first)
    expect(etags.of({ ...ada })).not.toBe(first)
    expect(etags.of({ ...ada, age: 36 })).toBe(first)
  })
})
