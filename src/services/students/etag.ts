import { LRUCache } from 'lru-cache'
import { strongEtag } from '../../http/rest/index.js'
import type { Student } from '../../domain/index.js'

/** How many records' ETags are kept: enough for a hot set, bounded whatever the collection holds. */
export const ETAGS_KEPT = 10_000

/**
 * Student ETags by record object, one cache per server (as the address
 * book's): stored records are never changed in place, so a record read again
 * is found by identity instead of hashed on every read. Records a database
 * store builds afresh for each read miss and are hashed as before.
 */
export class StudentEtags {
  readonly #etags = new LRUCache<Student, string>({ max: ETAGS_KEPT })

  /** Strong ETag of a student's v2 representation. */
  readonly of = (s: Student): string => {
    let etag = this.#etags.get(s)
    if (etag === undefined) {
      etag = studentEtag(s)
      this.#etags.set(s, etag)
    }
    return etag
  }
}

/** The ETag of a record's fields; NUL separates them, which no stored text holds. */
export function studentEtag (s: Student): string {
  return strongEtag(`${s.id}\u0000${s.firstName}\u0000${s.lastName}\u0000${s.age}`)
}
