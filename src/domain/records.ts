import type { Address, Student, WriteCondition } from './types.js'

/**
 * What every store shares about records: how two records compare (for
 * If-Match compare-and-set), the largest address id, and the result values
 * that carry no record. Stores import these from here, never from each other.
 */

/** The largest address id: 2^63 − 1, the top of a signed 64-bit integer (SQL bigint). */
export const MAX_ADDRESS_ID = 9223372036854775807n

export function sameStudent (a: Student, b: Student): boolean {
  return a.id === b.id && a.firstName === b.firstName && a.lastName === b.lastName && a.age === b.age
}

export function sameAddress (a: Address, b: Address): boolean {
  return a.id === b.id && a.name === b.name && a.city === b.city && a.postalCode === b.postalCode
}

/** The condition of an unconditional write; fits WriteCondition<T> for every T. */
export const NO_CONDITION: WriteCondition<never> = { kind: 'none' }
export const NOT_FOUND = { outcome: 'not-found' } as const
export const PRECONDITION_FAILED = { outcome: 'precondition-failed' } as const
export const DELETED = { outcome: 'deleted' } as const
/** Write only when no record holds the id (If-None-Match: *). */
export const IF_ABSENT: WriteCondition<never> = { kind: 'absent' }
/** Write only when a record holds the id (an update that must not create). */
export const IF_PRESENT: WriteCondition<never> = { kind: 'present' }
