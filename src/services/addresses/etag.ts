import { RecordEtags, strongEtag } from '../../http/rest/index.js'
import type { Address } from '../../domain/index.js'

/** Address ETags by record object, one cache per server (src/http/rest/record-etags.ts). */
export class AddressEtags extends RecordEtags<Address> {
  constructor () { super(addressEtag) }
}

/** Strong ETag of an address representation; length-prefixed fields so no two records share a fingerprint. */
export function addressEtag (a: Address): string {
  return strongEtag(`${a.id}|${a.name.length}:${a.name}|${a.city.length}:${a.city}|${a.postalCode}`)
}
