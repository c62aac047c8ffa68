import { LRUCache } from 'lru-cache'
import type { StoredRecord } from '../../domain/index.js'
import { strongEtag } from './conditional.js'

/** How many records' ETags a cache keeps: enough for a hot set, bounded whatever a collection holds. */
export const ETAGS_KEPT = 10_000

/**
 * The one ETag of every record, built-in or declared: a strong hash of its
 * JSON (fields in declaration order, as every store builds it). A 64-bit id
 * (the address book's bigint) enters as its decimal digits.
 */
export function recordEtag (record: StoredRecord): string {
  return strongEtag(typeof record.id === 'bigint' ? JSON.stringify(record, bigintDigits) : JSON.stringify(record))
}

function bigintDigits (_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value
}

/**
 * ETags by record object, one cache per server and collection. Stored records
 * are never changed in place (a write stores a new object), so a record's
 * ETag is hashed once and found again by identity on the next read instead of
 * hashing the record on every read. A write's answer computes it, so the reads
 * that follow find it. Records a database store builds afresh for each read
 * simply miss and are hashed as before.
 */
export class RecordEtags {
  // Made with the first ETag asked: an LRU allocates its slots up front, and a start makes one per collection.
  #etags: LRUCache<StoredRecord, string> | undefined

  /** The record's strong ETag (recordEtag). */
  readonly of = (record: StoredRecord): string => {
    const etags = this.#etags ??= new LRUCache<StoredRecord, string>({ max: ETAGS_KEPT })
    let etag = etags.get(record)
    if (etag === undefined) {
      etag = recordEtag(record)
      etags.set(record, etag)
    }
    return etag
  }
}
