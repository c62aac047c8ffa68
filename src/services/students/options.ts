import type { StudentStore } from '../../domain/index.js'
/** What the routes of every representation get. */
export interface StudentRoutesOptions {
  store: StudentStore
}
