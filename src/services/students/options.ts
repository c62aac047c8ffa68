import type { StudentStore } from '../../stores/types.js'

export interface StudentsServiceOptions {
  store: StudentStore
}
