import { strongEtag } from '../../http/conditional.js'
import type { Address } from '../../stores/types.js'

/** Strong ETag of an address representation; length-prefixed fields so no two records share a fingerprint. */
export function addressEtag (a: Address): string {
  return strongEtag(`${a.id}|${a.name.length}:${a.name}|${a.city.length}:${a.city}|${a.postalCode}`)
}
