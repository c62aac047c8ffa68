import type { StudentStore } from '../../domain/index.js'
import type { KeptLists } from '../../http/rest/index.js'
import type { StudentEtags } from './etag.js'

/** What the routes of every representation get (one set per server). */
export interface StudentRoutesOptions {
  store: StudentStore
  /** Whole lists serialised once per store revision (memory store), kept by this server. */
  lists: KeptLists
  /** v2 ETags by record object, kept by this server. */
  etags: StudentEtags
}
