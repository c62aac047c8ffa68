import { describe, expect, it } from 'vitest'
import { RecordEtags, recordEtag } from '../../../src/http/rest/record-etags.js'

/** Issue 20: a record's ETag is hashed once per stored record object, not on every read (issue 28: one scheme for every collection). */
describe('record ETags', () => {
  it('are found again by record identity; another object with other fields has another ETag', () => {
    const etags = new RecordEtags()
    const ada = { id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }
    const first = etags.of(ada)
    expect(first).toBe(recordEtag(ada))
    // Stores never change a record in place; changing this one shows the ETag comes from the cache.
    ada.age = 37
    expect(etags.of(ada)).toBe(first)
    expect(etags.of({ ...ada })).not.toBe(first)
    expect(etags.of({ ...ada, age: 36 })).toBe(first)
  })

  it('hash a 64-bit id by its digits: ids past 2^53 that one double would hold stay apart', () => {
    const a = { id: 9007199254740993n, name: 'Ada', city: 'Oslo', postalCode: '0150' }
    const b = { ...a, id: 9007199254740992n }
    expect(recordEtag(a)).toMatch(/^"[A-Za-z0-9_-]{16}"$/)
    expect(recordEtag(a)).not.toBe(recordEtag(b))
    expect(recordEtag(a)).toBe(recordEtag({ ...a }))
  })

  it('are one scheme: a record of a declared collection has the ETag of its JSON, as before', () => {
    const book = { id: 'b1f2…', title: 'Lovelace', pages: 120, read: true }
    expect(recordEtag(book)).toBe(recordEtag(JSON.parse(JSON.stringify(book)) as typeof book))
    expect(recordEtag(book)).not.toBe(recordEtag({ ...book, read: false }))
  })
})
