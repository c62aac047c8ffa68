import type { WriteCondition } from './store.js'

/**
 * Evaluates a write precondition against the stored record (undefined when
 * absent). The HTTP layer has already applied RFC 9110 §13.2.1: a write whose
 * unconditional answer would be 404 ignores its preconditions, so stores call
 * this only where the precondition decides.
 */
export function conditionHolds<T> (condition: WriteCondition<T>, current: T | undefined, same: (a: T, b: T) => boolean): boolean {
  switch (condition.kind) {
    case 'none': return true
    case 'absent': return current === undefined
    case 'present': return current !== undefined
    case 'matches': return current !== undefined && same(current, condition.current)
  }
}
