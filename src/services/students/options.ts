import type { StudentStore } from '../../stores/types.js'

/** What the routes of every representation get. */
export interface StudentRoutesOptions {
  store: StudentStore
}
