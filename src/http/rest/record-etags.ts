import { LRUCache } from 'lru-cache'

/** How many records' ETags a cache keeps: enough for a hot set, bounded whatever a collection holds. */
export const ETAGS_KEPT = 10_000

/**
 * ETags by record object, one cache per server and collection. Stored records
 * are never changed in place (a write stores a new object), so a record's
 * ETag is hashed once and found again by identity on the next read instead of
 * hashing the record on every read. A write's answer computes it, so the reads
 * that follow find it. Records a database store builds afresh for each read
 * simply miss and are hashed as before.
 */
export class RecordEtags<R extends object> {
  readonly #etags = new LRUCache<R, string>({ max: ETAGS_KEPT })

  constructor (private readonly etagOf: (record: R) => string) {}

  /** The record's strong ETag. */
  readonly of = (record: R): string => {
    let etag = this.#etags.get(record)
    if (etag === undefined) {
      etag = this.etagOf(record)
      this.#etags.set(record, etag)
    }
    return etag
  }
}
