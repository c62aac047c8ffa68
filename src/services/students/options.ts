import type { StudentStore } from './records.js'
import type { RecordRoutesOptions } from '../records/routes.js'

/** What the routes of every representation get (one set per server): v1 reads the typed view, v2 the record store. */
export interface StudentRoutesOptions extends RecordRoutesOptions {
  store: StudentStore
}
