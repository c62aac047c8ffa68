import { LRUCache } from 'lru-cache'
import { strongEtag } from '../../http/rest/index.js'
import type { Address } from '../../domain/index.js'
/** How many records' ETags are kept: enough for a hot set, bounded whatever the collection holds. */
export const ETAGS_KEPT = 10_000

/**
 * ETags by record object, one cache per server. Stored records are never
 * changed in place (a write stores a new object), so a record's ETag is hashed
 * once and found again by identity on the next read instead of hashing the
 * record on every read. A write's answer computes it, so the reads that
 * follow find it. Records a database store builds afresh for each read simply
 * miss and are hashed as before.
 */
export class AddressEtags {
  readonly #etags = new LRUCache<Address, string>({ max: ETAGS_KEPT })

  /** Strong ETag of an address representation. */
  readonly of = (a: Address): string => {
    let etag = this.#etags.get(a)
    if (etag === undefined) {
      etag = addressEtag(a)
      this.#etags.set(a, etag)
    }
    return etag
  }
}

/** Strong ETag of an address representation; length-prefixed fields so no two records share a fingerprint. */
export function addressEtag (a: Address): string {
  return strongEtag(`${a.id}|${a.name.length}:${a.name}|${a.city.length}:${a.city}|${a.postalCode}`)
}
